/**
 * A statement as the inspector is about to run it (or ran it): highlighted DQL and its JSON
 * arguments, each copyable. Every UI action shows one, so that the user learns the DQL.
 */
import type { JsonObject } from '../../../shared/json.ts';
import { CopyButton } from './CopyButton.tsx';
import { dqlTokens } from './dql-words.ts';
import { JsonView } from './JsonView.tsx';

export function DqlText({ text, className }: { readonly text: string; readonly className?: string }) {
  return (
    <code className={className}>
      {dqlTokens(text).map((token, i) =>
        token.kind === 'space' ? (
          token.text
        ) : (
          <span key={i} className={`dql-${token.kind}`}>
            {token.text}
          </span>
        ),
      )}
    </code>
  );
}

export interface StatementViewProps {
  readonly statement: string;
  readonly args?: JsonObject;
  /** What the block is called: `DQL statement` by default. */
  readonly label?: string;
}

export function StatementView({ statement, args, label = 'DQL statement' }: StatementViewProps) {
  const hasArgs = args !== undefined && Object.keys(args).length > 0;
  return (
    <div className="statement-view">
      <div className="statement-preview" role="group" aria-label={label}>
        <div className="statement-preview-label">
          <span>{label}</span>
          <CopyButton text={statement} label="Copy the statement" />
        </div>
        <pre>
          <DqlText text={statement} />
        </pre>
      </div>
      {hasArgs && (
        <div className="statement-preview" role="group" aria-label="Arguments">
          <div className="statement-preview-label">
            <span>Arguments</span>
            <CopyButton text={JSON.stringify(args, null, 2)} label="Copy the arguments" />
          </div>
          <JsonView value={args} className="statement-args" />
        </div>
      )}
    </div>
  );
}
