/** The Logs panel. */
export function LogsPanel() {
  return <p className="panel-placeholder">Logs: not built yet.</p>;
}
