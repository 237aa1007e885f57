/** The Documents panel's list of collections with their counts; internal ones behind a switch; a click opens one. */
import { useInspector } from '../../store/index.ts';
import { Switch } from '../../ui/Button.tsx';
import { formatCount } from '../../ui/format.ts';
import { Icon } from '../../ui/Icon.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../ui/states.tsx';
import { collectionTable } from '../overview/model.ts';

export function CollectionList() {
  const snapshot = useInspector((s) => s.overview.snapshot);
  const selected = useInspector((s) => s.documentsView.collection);
  const showInternal = useInspector((s) => s.documentsView.showInternal);
  const filter = useInspector((s) => s.documentsView.collectionFilter);
  const setView = useInspector((s) => s.setDocumentsView);
  const openCollection = useInspector((s) => s.openCollection);
  const collections = snapshot.value?.collections ?? [];
  const table = collectionTable(collections, showInternal);
  const needle = filter.trim().toLowerCase();
  const rows = needle === '' ? table.rows : table.rows.filter((c) => c.name.toLowerCase().includes(needle));
  const internal = collections.filter((c) => c.internal).length;
  return (
    <nav className="collections" aria-label="Collections">
      <div className="collections-header">
        <h2 className="collections-title">Collections</h2>
        <span className="faint">{formatCount(table.rows.length)}</span>
      </div>
      <div className="collections-filter">
        <Icon name="search" />
        <input
          className="input"
          type="search"
          aria-label="Filter collections"
          placeholder="Filter"
          value={filter}
          onChange={(event) => setView({ collectionFilter: event.target.value })}
        />
      </div>
      <div className="collections-list">
        {snapshot.value === undefined ? (
          snapshot.error !== undefined ? (
            <ErrorNotice compact error={snapshot.error} />
          ) : (
            <Loading inline>Loading…</Loading>
          )
        ) : rows.length === 0 ? (
          <EmptyState compact title={needle === '' ? 'No collections yet' : 'No collection matches'}>
            {needle === '' && <p>Insert a document with the console: INSERT INTO c DOCUMENTS (:doc).</p>}
          </EmptyState>
        ) : (
          <ul>
            {rows.map((c) => (
              <li key={c.name}>
                <button
                  type="button"
                  className="collection-item"
                  aria-current={c.name === selected ? 'true' : undefined}
                  title={`${c.name}: ${formatCount(c.documents)} documents, ${formatCount(c.tombstones)} tombstones`}
                  onClick={() => openCollection(c.name)}
                >
                  <Icon name={c.internal ? 'database' : 'table'} />
                  <span className="collection-name">{c.name}</span>
                  <span className="collection-count">{formatCount(c.documents)}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="collections-footer">
        <Switch checked={showInternal} onChange={(value) => setView({ showInternal: value })} label={`Internal collections (${internal})`} />
      </div>
    </nav>
  );
}
