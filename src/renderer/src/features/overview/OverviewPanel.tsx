/** The Overview panel. */
export function OverviewPanel() {
  return <p className="panel-placeholder">Overview: not built yet.</p>;
}
