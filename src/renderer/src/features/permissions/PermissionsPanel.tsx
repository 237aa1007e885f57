/**
 * The Permissions panel: for one document, whether each peer (this one first, then each
 * connected one) may read and write it, and why; and the read and write rules of every peer
 * (spec section 2.5: `everything`, `queries_by_collection`).
 */
import { useInspector } from '../../store/index.ts';
import { isFirstLoad } from '../../store/remote.ts';
import { Button, IconButton } from '../../ui/Button.tsx';
import { formatCount } from '../../ui/format.ts';
import { JsonView } from '../../ui/JsonView.tsx';
import { Section } from '../../ui/Section.tsx';
import { ErrorNotice, Loading } from '../../ui/states.tsx';
import { AccessCheck } from './AccessCheck.tsx';
import { RulesCard } from './RulesCard.tsx';
import './permissions.css';

export function PermissionsPanel() {
  const snapshot = useInspector((s) => s.permissions.snapshot);
  const load = useInspector((s) => s.loadPermissions);
  const printed = useInspector((s) => s.permissionsView.printed);
  const setPrinted = useInspector((s) => s.setPermissionsPrinted);
  const value = snapshot.value;
  return (
    <div className="panel-scroll">
      <div className="page">
        <header className="page-header">
          <div>
            <h2 className="page-title">Permissions</h2>
            <p className="page-description">
              This peer’s rules are its certificate’s: what the Big Peer lets it read and write. A remote’s rules are what it may read from and write to this
              peer.
            </p>
          </div>
          <div className="page-actions">
            {snapshot.status === 'loading' && value !== undefined && <span className="spinner" role="status" aria-label="Refreshing" />}
            <IconButton icon="refresh" label="Refresh" onClick={() => void load()} />
          </div>
        </header>
        <AccessCheck />
        <Section
          title={
            <>
              Rules <span className="faint">{value === undefined ? '' : formatCount(1 + value.remotes.length)}</span>
            </>
          }
          actions={
            <Button variant="ghost" icon="braces" aria-pressed={printed} onClick={() => setPrinted(!printed)}>
              As printed
            </Button>
          }
        >
          {isFirstLoad(snapshot) ? (
            <Loading>Loading the rules…</Loading>
          ) : value === undefined ? (
            <ErrorNotice
              title="Could not load the rules"
              error={snapshot.error ?? { code: 'internal/unexpected', message: 'no answer' }}
              onRetry={() => void load()}
            />
          ) : printed ? (
            <div className="card printed-rules">
              <JsonView
                value={{ local: value.local.permissions ?? null, remotes: Object.fromEntries(value.remotes.map((r) => [r.peerKey, r.permissions ?? null])) }}
              />
            </div>
          ) : (
            <div className="rules-grid">
              {snapshot.status === 'error' && snapshot.error !== undefined && <ErrorNotice compact title="The last refresh failed" error={snapshot.error} />}
              <RulesCard peer={value.local} />
              {value.remotes.map((remote) => (
                <RulesCard key={remote.peerKey} peer={remote} />
              ))}
              {value.remotes.length === 0 && <p className="muted small rules-none">No remote peer is connected: only this peer’s rules apply now.</p>}
            </div>
          )}
        </Section>
      </div>
    </div>
  );
}
