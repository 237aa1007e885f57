/** For one document: may each peer read it and write it, and why (the rule that decided). */
import type { Verdict } from '../../../../shared/inspector/permissions.ts';
import { useInspector } from '../../store/index.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Button } from '../../ui/Button.tsx';
import { compactJson } from '../../ui/format.ts';
import { Icon } from '../../ui/Icon.tsx';
import { PeerKey } from '../../ui/PeerKey.tsx';
import { Section } from '../../ui/Section.tsx';
import { EmptyState, ErrorNotice } from '../../ui/states.tsx';
import { parseIdInput } from './model.ts';
import { ROLE_LABELS } from './RulesCard.tsx';

export function AccessCheck() {
  const view = useInspector((s) => s.permissionsView);
  const setQuery = useInspector((s) => s.setAccessQuery);
  const run = useInspector((s) => s.runAccessCheck);
  const check = useInspector((s) => s.permissions.check);
  const collections = useInspector((s) => s.overview.snapshot.value?.collections);
  const id = parseIdInput(view.idText);
  const ready = view.collection.trim() !== '' && id !== undefined;
  const report = check.value;
  return (
    <Section
      card
      title="Check a document"
      description="Pick a document; each peer’s read and write verdict comes with the rule that decided it."
      className="access-card"
    >
      <form
        className="access-form"
        aria-label="Check a document’s access"
        onSubmit={(event) => {
          event.preventDefault();
          if (ready) void run();
        }}
      >
        <label className="field">
          <span className="field-label">Collection</span>
          <input
            className="input mono"
            list="access-collections"
            value={view.collection}
            placeholder="orders"
            onChange={(event) => setQuery({ collection: event.target.value })}
          />
          <datalist id="access-collections">
            {(collections ?? []).map((c) => (
              <option key={c.name} value={c.name} />
            ))}
          </datalist>
        </label>
        <label className="field access-id">
          <span className="field-label">_id</span>
          <input
            className="input mono"
            value={view.idText}
            placeholder='o1   (or JSON: 42, {"shop": 1})'
            onChange={(event) => setQuery({ idText: event.target.value })}
          />
        </label>
        <Button type="submit" variant="primary" icon="shield" disabled={!ready} busy={check.status === 'loading'}>
          Check access
        </Button>
      </form>
      {check.status === 'error' && check.error !== undefined && <ErrorNotice compact title="Could not check the document" error={check.error} />}
      {report === undefined ? (
        check.status !== 'error' && (
          <EmptyState compact icon="shield" title="No document checked yet">
            <p>Type a collection and an _id, or use Access on a document in the Documents panel.</p>
          </EmptyState>
        )
      ) : (
        <>
          <p className="access-subject">
            <code>{report.collection}</code> <span className="faint">/</span> <code>{compactJson(report.id, 120)}</code>
            {!report.found && (
              <Badge tone="warn" title="Rules with conditions cannot be decided for a document this peer does not hold">
                not held on this peer
              </Badge>
            )}
          </p>
          {!report.found && (
            <p className="access-warning">
              <Icon name="info" /> This peer does not hold this document, so rules with conditions cannot be tested against it; only rules without conditions
              decide.
            </p>
          )}
          <table className="data-table access-table" aria-label="Access by peer">
            <thead>
              <tr>
                <th scope="col">Peer</th>
                <th scope="col">Read</th>
                <th scope="col">Write</th>
              </tr>
            </thead>
            <tbody>
              {report.peers.map((peer) => (
                <tr key={peer.peerKey}>
                  <td>
                    <span className="access-peer">
                      <Badge tone={peer.role === 'local' ? 'accent' : peer.role === 'big-peer' ? 'info' : 'neutral'}>{ROLE_LABELS[peer.role]}</Badge>
                      <PeerKey value={peer.peerKey} copy={false} />
                    </span>
                  </td>
                  <td>
                    <VerdictCell verdict={peer.read} what="read" />
                  </td>
                  <td>
                    <VerdictCell verdict={peer.write} what="write" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Section>
  );
}

function VerdictCell({ verdict, what }: { readonly verdict: Verdict; readonly what: string }) {
  return (
    <span className="verdict">
      <Badge tone={verdict.allowed ? 'ok' : 'danger'}>
        <Icon name={verdict.allowed ? 'check' : 'x'} size={11} /> {verdict.allowed ? `may ${what}` : `may not ${what}`}
      </Badge>
      <span className="verdict-reason">{verdict.reason}</span>
    </span>
  );
}
