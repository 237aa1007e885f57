/** The Subscriptions panel. */
export function SubscriptionsPanel() {
  return <p className="panel-placeholder">Subscriptions: not built yet.</p>;
}
