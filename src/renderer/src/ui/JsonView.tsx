/** JSON with syntax colours: pretty (a block) or in one line (a table cell, a list row). */
import { memo } from 'react';
import { jsonTokens } from './json-tokens.ts';

export interface JsonViewProps {
  readonly value: unknown;
  /** One line instead of an indented block. */
  readonly inline?: boolean;
  readonly maxLength?: number;
  readonly className?: string;
}

export const JsonView = memo(function JsonView({ value, inline = false, maxLength, className }: JsonViewProps) {
  const tokens = jsonTokens(value, { indent: inline ? 0 : 2, ...(maxLength === undefined ? {} : { maxLength }) });
  const Tag = inline ? 'span' : 'pre';
  return (
    <Tag className={`json ${inline ? 'json-inline' : 'json-block'}${className === undefined ? '' : ` ${className}`}`}>
      {tokens.map((token, i) => (token.kind === 'space' ? token.text : <span key={i} className={`j-${token.kind}`}>{token.text}</span>))}
    </Tag>
  );
});

/** One scalar or a compact structure, coloured by type, for table cells. */
export const ValueCell = memo(function ValueCell({ value }: { readonly value: unknown }) {
  if (value === undefined) return <span className="j-missing">—</span>;
  if (value === null) return <span className="j-literal">null</span>;
  if (typeof value === 'string') return <span className="j-string-plain">{value.length > 300 ? `${value.slice(0, 299)}…` : value}</span>;
  if (typeof value === 'number') return <span className="j-number">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="j-literal">{String(value)}</span>;
  return <JsonView value={value} inline maxLength={300} />;
});
