/** Queries in the spec's shape (`expr`, `order_by`, `limit`, `offset`), with how many local documents each matches. */
import type { ReactNode } from 'react';
import type { SubscriptionQuery } from '../../../../shared/subscriptions.ts';
import { formatCount } from '../../ui/format.ts';
import { DqlText } from '../../ui/StatementView.tsx';

export interface QueryRow {
  readonly key: string;
  readonly collection: string;
  readonly query: SubscriptionQuery;
  readonly matching: number | undefined;
  /** Before the collection: an id. */
  readonly lead?: ReactNode;
  /** After the collection: badges. */
  readonly badges?: ReactNode;
  /** The last column: a button. */
  readonly action?: ReactNode;
}

export function QueryTable({
  rows,
  label,
  withLead = false,
  withAction = false,
}: {
  readonly rows: readonly QueryRow[];
  readonly label: string;
  readonly withLead?: boolean;
  readonly withAction?: boolean;
}) {
  return (
    <table className="data-table query-table" aria-label={label}>
      <thead>
        <tr>
          {withLead && (
            <th scope="col" className="num">
              ID
            </th>
          )}
          <th scope="col">Collection</th>
          <th scope="col">expr</th>
          <th scope="col">order_by</th>
          <th scope="col" className="num">
            limit
          </th>
          <th scope="col" className="num">
            offset
          </th>
          <th scope="col" className="num">
            Matching here
          </th>
          {withAction && (
            <th scope="col" className="actions">
              <span className="visually-hidden">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key}>
            {withLead && <td className="num muted">{row.lead}</td>}
            <td>
              <span className="query-collection">
                <code>{row.collection}</code>
                {row.badges}
              </span>
            </td>
            <td className="query-expr">
              {row.query.expr === '' || row.query.expr === 'true' ? <span className="faint">every document</span> : <DqlText text={row.query.expr} />}
            </td>
            <td className="mono">{row.query.order_by.length === 0 ? <span className="faint">—</span> : row.query.order_by.join(', ')}</td>
            <td className="num mono">{row.query.limit ?? <span className="faint">—</span>}</td>
            <td className="num mono">{row.query.offset ?? <span className="faint">—</span>}</td>
            <td className="num">{row.matching === undefined ? <span className="faint">—</span> : <strong>{formatCount(row.matching)}</strong>}</td>
            {withAction && <td className="actions">{row.action}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
