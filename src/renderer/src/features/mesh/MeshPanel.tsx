/** The Mesh panel. */
export function MeshPanel() {
  return <p className="panel-placeholder">Mesh: not built yet.</p>;
}
