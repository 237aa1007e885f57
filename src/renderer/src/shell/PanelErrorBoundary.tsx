/** Keeps a failing panel from taking the inspector down: it shows the error and a retry. */
import { Component, type ReactNode } from 'react';

interface Props {
  readonly title: string;
  readonly children: ReactNode;
}

interface State {
  readonly error: Error | undefined;
}

export class PanelErrorBoundary extends Component<Props, State> {
  override state: State = { error: undefined };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (error === undefined) return this.props.children;
    return (
      <div role="alert" className="panel-error">
        <p>
          The {this.props.title} panel failed: {error.message}
        </p>
        <button type="button" onClick={() => this.setState({ error: undefined })}>
          Retry
        </button>
      </div>
    );
  }
}
