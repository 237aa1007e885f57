/** Keeps a failing panel from taking the inspector down: it shows the error and a retry. */
import { Component, type ReactNode } from 'react';
import { Button } from '../ui/Button.tsx';
import { Icon } from '../ui/Icon.tsx';

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
      <div role="alert" className="panel-error error-notice">
        <Icon name="alert" size={16} className="error-icon" />
        <div className="error-body">
          <p className="error-title">The {this.props.title} panel failed</p>
          <p className="error-message">
            <code className="error-code">{error.name}</code> {error.message}
          </p>
        </div>
        <Button icon="refresh" onClick={() => this.setState({ error: undefined })}>
          Retry
        </Button>
      </div>
    );
  }
}
