/** The Overview's collection table: documents and tombstones per collection, internal ones behind a switch; a name opens it in Documents. */
import type { OverviewSnapshot } from '../../../../shared/inspector/overview.ts';
import { useInspector } from '../../store/index.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Switch } from '../../ui/Button.tsx';
import { formatCount, plural } from '../../ui/format.ts';
import { Icon } from '../../ui/Icon.tsx';
import { Section } from '../../ui/Section.tsx';
import { EmptyState } from '../../ui/states.tsx';
import { collectionTable } from './model.ts';

export function CollectionsCard({ snapshot }: { readonly snapshot: OverviewSnapshot }) {
  const showInternal = useInspector((s) => s.overviewView.showInternal);
  const setShowInternal = useInspector((s) => s.setOverviewShowInternal);
  const openCollection = useInspector((s) => s.openCollection);
  const table = collectionTable(snapshot.collections, showInternal);
  const internalCount = snapshot.collections.filter((c) => c.internal).length;
  return (
    <Section
      card
      className="collections-card"
      title="Collections"
      description={`${plural(table.rows.length, 'collection')} · ${plural(table.documents, 'document')} · ${plural(table.tombstones, 'tombstone')}`}
      actions={<Switch checked={showInternal} onChange={setShowInternal} label={`Show internal (${internalCount})`} />}
    >
      {table.rows.length === 0 ? (
        <EmptyState compact icon="database" title="No collections yet">
          <p>Insert a document from the Documents panel, or subscribe to a collection that other peers hold.</p>
        </EmptyState>
      ) : (
        <table className="data-table collections-table" aria-label="Collections">
          <thead>
            <tr>
              <th scope="col">Collection</th>
              <th scope="col" className="num">
                Documents
              </th>
              <th scope="col" className="num">
                Tombstones
              </th>
              <th scope="col" className="bar-col">
                <span className="visually-hidden">Share</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {table.rows.map((c) => {
              const total = c.documents + c.tombstones;
              const docShare = table.largest === 0 ? 0 : (c.documents / table.largest) * 100;
              const tombShare = table.largest === 0 ? 0 : (c.tombstones / table.largest) * 100;
              return (
                <tr key={c.name}>
                  <td>
                    <button type="button" className="link-button" onClick={() => openCollection(c.name)} title={`Open ${c.name} in Documents`}>
                      <Icon name="table" />
                      <span className="mono">{c.name}</span>
                    </button>
                    {c.internal && <Badge>internal</Badge>}
                  </td>
                  <td className="num">{formatCount(c.documents)}</td>
                  <td className="num muted">{formatCount(c.tombstones)}</td>
                  <td className="bar-col" aria-hidden="true">
                    {total > 0 && (
                      <span className="bar">
                        <span className="bar-docs" style={{ width: `${docShare}%` }} />
                        <span className="bar-tombs" style={{ width: `${tombShare}%` }} />
                      </span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {!showInternal && table.hiddenInternal > 0 && (
        <p className="table-note">
          {plural(table.hiddenInternal, 'internal collection')} hidden (kept by the peer itself, such as <code>__presence</code>).
        </p>
      )}
    </Section>
  );
}
