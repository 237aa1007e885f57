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
      {tokens.map((token, i) =>
        token.kind === 'space' ? (
          token.text
        ) : (
          <span key={i} className={`j-${token.kind}`}>
            {token.text}
          </span>
        ),
      )}
    </Tag>
  );
});

/**
 * How a table cell shows a scalar (missing, null, string, number, boolean): its text and the class
 * that colours it by type; undefined for an object or an array (a JsonView shows those).
 */
export function scalarView(value: unknown): { readonly text: string; readonly className: string } | undefined {
  if (value === undefined) return { text: '—', className: 'j-missing' };
  if (value === null) return { text: 'null', className: 'j-literal' };
  if (typeof value === 'string') return { text: value.length > 300 ? `${value.slice(0, 299)}…` : value, className: 'j-string-plain' };
  if (typeof value === 'number') return { text: String(value), className: 'j-number' };
  if (typeof value === 'boolean') return { text: String(value), className: 'j-literal' };
  return undefined;
}

/** One scalar or a compact structure, coloured by type, for table cells. */
export const ValueCell = memo(function ValueCell({ value }: { readonly value: unknown }) {
  const scalar = scalarView(value);
  return scalar === undefined ? <JsonView value={value} inline maxLength={300} /> : <span className={scalar.className}>{scalar.text}</span>;
});
