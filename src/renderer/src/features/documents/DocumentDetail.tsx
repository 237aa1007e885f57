/**
 * The selected document: its stored JSON (not the projected row) with the actions that change
 * it (edit, delete, evict: each shown as its statement before it runs), its per-field merge
 * metadata (which peer wrote each winning value, and when), and its sync trace (where it stands
 * with each remote peer).
 */
import { NamedKey } from '../../ui/NamedKey.tsx';
import type { DocumentMetadata } from '../../../../shared/inspector/documents.ts';
import { useInspector } from '../../store/index.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Button, IconButton } from '../../ui/Button.tsx';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { compactJson, formatCount, plural } from '../../ui/format.ts';
import { JsonView, ValueCell } from '../../ui/JsonView.tsx';
import { KeyValueList } from '../../ui/Section.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../ui/states.tsx';
import { Tabs } from '../../ui/Tabs.tsx';
import { StampTime, WriterLabel } from './WriterLabel.tsx';
import { SyncTrace } from './SyncTrace.tsx';

export function DocumentDetail() {
  const selected = useInspector((s) => s.documentsView.selected);
  const detail = useInspector((s) => s.documents.detail);
  const tab = useInspector((s) => s.documentsView.detailTab);
  const setView = useInspector((s) => s.setDocumentsView);
  const openDialog = useInspector((s) => s.openDialog);
  const checkAccess = useInspector((s) => s.openAccessCheck);
  if (selected === undefined) {
    return (
      <aside className="detail" aria-label="Document">
        <EmptyState icon="documents" title="No document selected">
          <p>Select a row to see the document, who wrote each field, and to edit, delete or evict it.</p>
        </EmptyState>
      </aside>
    );
  }
  const { collection, id } = selected;
  const meta = detail.value;
  const actionable = collection !== undefined && id !== undefined;
  const tombstone = meta !== undefined && meta.value === null;
  const canChange = actionable && meta !== undefined && !tombstone && detail.status !== 'error';
  return (
    <aside className="detail" aria-label="Document">
      <header className="detail-header">
        <div className="detail-title">
          <span className="detail-label">{collection ?? 'Row'}</span>
          {id !== undefined && (
            <span className="detail-id">
              <code title={compactJson(id, 1000)}>{compactJson(id, 80)}</code>
              <CopyButton text={typeof id === 'string' ? id : JSON.stringify(id)} label="Copy the _id" />
            </span>
          )}
        </div>
        <IconButton icon="x" label="Close the document pane" onClick={() => setView({ detailOpen: false })} />
      </header>
      {actionable && (
        <div className="detail-actions" role="toolbar" aria-label="Document actions">
          <Button icon="pencil" disabled={!canChange} onClick={() => openDialog({ kind: 'edit', collection, id })}>
            Edit
          </Button>
          <Button variant="danger" icon="trash" disabled={!canChange} onClick={() => openDialog({ kind: 'delete', collection, id })}>
            Delete
          </Button>
          <Button icon="evict" disabled={!actionable || tombstone || detail.status === 'error'} onClick={() => openDialog({ kind: 'evict', collection, id })}>
            Evict
          </Button>
          <span className="toolbar-spacer" />
          <CopyButton text={JSON.stringify(meta?.value ?? selected.row, null, 2)} label="Copy the document as JSON" caption="Copy JSON" />
          <Button variant="ghost" icon="shield" onClick={() => checkAccess({ collection, id })}>
            Access
          </Button>
        </div>
      )}
      <div className="detail-tabs">
        <Tabs
          label="Document view"
          idPrefix="detail"
          value={tab}
          onChange={(detailTab) => setView({ detailTab })}
          options={[
            { id: 'document', label: 'Document' },
            { id: 'metadata', label: 'Merge metadata', ...(meta === undefined ? {} : { count: formatCount(meta.fields.length) }) },
            { id: 'trace', label: 'Sync trace' },
          ]}
        />
      </div>
      <div className="detail-body" role="tabpanel" id={`detail-panel-${tab}`} aria-labelledby={`detail-tab-${tab}`}>
        {!actionable && (
          <p className="detail-note">
            This row has no <code>_id</code> from a collection (a projection or an aggregate): it is shown as the query returned it, without metadata or
            actions.
          </p>
        )}
        {detail.status === 'error' && detail.error !== undefined ? (
          detail.error.code === 'inspector/not-found' ? (
            <EmptyState compact icon="evict" title="This peer no longer holds the document">
              <p>It was evicted (or never stored here). A peer that holds it may sync it back while this peer subscribes to it.</p>
              <p>
                <code>{detail.error.code}</code>
              </p>
            </EmptyState>
          ) : (
            <ErrorNotice compact title="Could not read the document’s metadata" error={detail.error} />
          )
        ) : tab === 'trace' ? (
          actionable ? (
            <SyncTrace />
          ) : null
        ) : tab === 'document' ? (
          <>
            {tombstone && meta?.deleted !== undefined && (
              <div className="tombstone-note" role="status">
                <Badge tone="danger">tombstone</Badge> Deleted by <WriterLabel stamp={meta.deleted} /> at <StampTime stamp={meta.deleted} />. Only its{' '}
                <code>_id</code> and deletion stamp are kept, so that the deletion replicates.
              </div>
            )}
            {meta === undefined && detail.status === 'loading' && <Loading inline>Reading the stored document…</Loading>}
            <JsonView value={meta === undefined ? selected.row : (meta.value ?? { _id: meta.id })} />
          </>
        ) : meta === undefined ? (
          actionable ? (
            <Loading inline>Reading the merge metadata…</Loading>
          ) : null
        ) : (
          <MergeMetadata meta={meta} />
        )}
      </div>
    </aside>
  );
}

function MergeMetadata({ meta }: { readonly meta: DocumentMetadata }) {
  return (
    <div className="merge">
      <KeyValueList
        className="merge-summary"
        items={[
          ['Created', <StampLine key="c" stamp={meta.created} />],
          ...(meta.deleted === undefined ? [] : [['Deleted', <StampLine key="d" stamp={meta.deleted} />] as const]),
          ['Last commit', <span key="t">txn {formatCount(meta.txnId)} on this peer</span>],
        ]}
      />
      {meta.fields.length === 0 ? (
        <EmptyState compact title="No fields">
          {meta.value === null && <p>A tombstone keeps no fields: only its _id and the deletion stamp.</p>}
        </EmptyState>
      ) : (
        <table className="data-table merge-table" aria-label="Fields and who wrote them">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Winning value · writer · when (UTC)</th>
            </tr>
          </thead>
          <tbody>
            {meta.fields.map((field) => (
              <tr key={field.path} className={field.kind === 'removed' ? 'merge-removed' : undefined}>
                <td className="merge-path">
                  <code>{field.path}</code>
                  {field.kind !== 'register' && <Badge tone={field.kind === 'counter' ? 'info' : 'neutral'}>{field.kind}</Badge>}
                </td>
                <td>
                  <div className="merge-value">{field.kind === 'removed' ? <span className="faint">removed</span> : <ValueCell value={field.value} />}</div>
                  <div className="merge-stamp">
                    <WriterLabel stamp={field.stamp} />
                    <StampTime stamp={field.stamp} />
                  </div>
                  {field.tallies !== undefined && (
                    <ul className="tallies" aria-label="Each writer’s tally">
                      {Object.entries(field.tallies).map(([writer, tally]) => (
                        <li key={writer}>
                          <NamedKey value={writer} /> {tally >= 0 ? '+' : ''}
                          {tally}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="table-note">{plural(meta.fields.length, 'leaf field')}, removed ones included. Hover a time for its hybrid-clock stamp.</p>
    </div>
  );
}

function StampLine({ stamp }: { readonly stamp: DocumentMetadata['created'] }) {
  return (
    <span className="stamp-line">
      <WriterLabel stamp={stamp} /> <StampTime stamp={stamp} />
    </span>
  );
}
