/** The Documents panel. */
export function DocumentsPanel() {
  return <p className="panel-placeholder">Documents: not built yet.</p>;
}
