/**
 * A transaction's hint, with each peer key in it named: a replication transaction's
 * `replication from <key>` reads `replication from till-2 (AbCdEfGh…wxyz)`; the whole hint,
 * key included, stays in the tooltip.
 */
import { usePeerNames } from '../../ui/peer-names-context.ts';
import { withPeerNames } from '../mesh/peer-names.ts';

export function TxnHint({ hint }: { readonly hint: string }) {
  const names = usePeerNames();
  const named = withPeerNames(hint, names);
  return named === hint ? <>{hint}</> : <span title={hint}>{named}</span>;
}
