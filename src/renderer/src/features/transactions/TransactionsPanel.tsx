/** The Transactions panel. */
export function TransactionsPanel() {
  return <p className="panel-placeholder">Transactions: not built yet.</p>;
}
