/**
 * "Connect to a running peer" (the desktop app only): the inspector of a peer this app does not
 * host (an app's own peer through `serveInspector`, `syncmesh inspect`, a Big Peer's
 * `--inspect-port`) opens in a window of its own, by the URL that peer printed; the app remembers
 * it. The URL is checked as it is typed, with the rule the main process applies
 * (`parseInspectorUrl`).
 */
import { useEffect, useState, type FormEvent } from 'react';
import { parseInspectorUrl, type RemotePeerEntry, type RemotePeersApi } from '../../../shared/inspector/remote-peers.ts';
import type { ErrorValue } from '../../../shared/error-codes.ts';
import { Button } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { formatTimestamp } from '../ui/format.ts';
import { ErrorNotice } from '../ui/states.tsx';

export function ConnectPeerDialog({ peers, onClose }: { readonly peers: RemotePeersApi; readonly onClose: () => void }) {
  const [remembered, setRemembered] = useState<readonly RemotePeerEntry[] | undefined>(undefined);
  const [url, setUrl] = useState('');
  const [label, setLabel] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorValue | undefined>(undefined);
  const [opened, setOpened] = useState<string | undefined>(undefined);

  const reload = (): void => void peers.list().then(setRemembered);
  useEffect(reload, [peers]);

  const parsed = parseInspectorUrl(url);
  const open = async (target: string, name?: string): Promise<void> => {
    setBusy(true);
    setError(undefined);
    const result = await peers.open(target, name);
    setBusy(false);
    if (!result.ok) {
      setError(result.error);
      return;
    }
    setOpened(result.value.label);
    setUrl('');
    setLabel('');
    reload();
  };
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (parsed.ok) void open(url, label.trim() === '' ? undefined : label);
  };

  return (
    <Dialog
      title="Connect to a running peer"
      size="md"
      onClose={onClose}
      description="Open the inspector of a peer this app does not host, in a window of its own: an app's own peer (serveInspector), syncmesh inspect, or a Big Peer started with --inspect-port."
    >
      <form className="connect-peer-form" aria-label="Connect to a running peer" onSubmit={submit}>
        <label className="field">
          <span className="field-label">Inspector URL</span>
          <input
            className="input mono"
            value={url}
            placeholder="http://127.0.0.1:<port>/<token>/"
            aria-invalid={url.trim() !== '' && !parsed.ok ? true : undefined}
            onChange={(event) => setUrl(event.target.value)}
            autoFocus
          />
          {url.trim() !== '' && !parsed.ok && <span className="field-hint field-hint-error">{parsed.message}</span>}
        </label>
        <label className="field">
          <span className="field-label">Name (optional)</span>
          <input className="input" value={label} placeholder="Register 2" maxLength={80} onChange={(event) => setLabel(event.target.value)} />
        </label>
        <Button type="submit" variant="primary" icon="link" disabled={!parsed.ok} busy={busy}>
          Connect
        </Button>
      </form>
      {error !== undefined && <ErrorNotice compact title="Could not open the peer" error={error} />}
      {opened !== undefined && error === undefined && <p role="status">Opened {opened} in a window of its own.</p>}
      <h3 className="connect-peer-heading">Remembered peers</h3>
      {remembered === undefined ? null : remembered.length === 0 ? (
        <p className="faint">None yet: the peers you open are kept here.</p>
      ) : (
        <table className="data-table" aria-label="Remembered peers">
          <thead>
            <tr>
              <th scope="col">Peer</th>
              <th scope="col">Last opened</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {remembered.map((entry) => (
              <tr key={entry.url}>
                <td>
                  {entry.label}
                  <div className="faint mono">{new URL(entry.url).host}</div>
                </td>
                <td>{formatTimestamp(entry.lastOpenedAt)}</td>
                <td>
                  <Button icon="link" onClick={() => void open(entry.url)} disabled={busy} aria-label={`Open ${entry.label}`}>
                    Open
                  </Button>{' '}
                  <Button variant="ghost" icon="trash" onClick={() => void peers.forget(entry.url).then(reload)} aria-label={`Forget ${entry.label}`}>
                    Forget
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Dialog>
  );
}
