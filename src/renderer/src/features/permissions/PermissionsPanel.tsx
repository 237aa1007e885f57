/** The Permissions panel. */
export function PermissionsPanel() {
  return <p className="panel-placeholder">Permissions: not built yet.</p>;
}
