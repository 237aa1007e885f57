/**
 * "Connect to a running peer" in the desktop app: the inspector of a peer the app does not host
 * (an app's own peer through `serveInspector`, `syncmesh inspect`, a Big Peer's
 * `--inspect-port`) opened in a window of its own, by the URL it printed, and remembered. The
 * main process keeps the list; the page asks for it through the preload (`DesktopApi.peers`).
 * Pure: the URL rule is shared so that the dialog checks as the user types and the main process
 * checks for real.
 */
import type { CallResult } from './result.ts';

/** A remembered inspector URL. */
export interface RemotePeerEntry {
  /** `http://<ip>:<port>/<token>/`, normalised. */
  readonly url: string;
  /** What the user called it (default: its address). */
  readonly label: string;
  /** When it was last opened (ms since the epoch). */
  readonly lastOpenedAt: number;
}

/** What the preload exposes on `window.syncmesh.peers` (the desktop app only). */
export interface RemotePeersApi {
  /** The remembered peers, the most recently opened first. */
  list(): Promise<readonly RemotePeerEntry[]>;
  /** Opens the inspector at `url` in its own window and remembers it (`inspector/bad-request` for a URL that is not one). */
  open(url: string, label?: string): Promise<CallResult<RemotePeerEntry>>;
  /** Forgets a remembered peer. */
  forget(url: string): Promise<void>;
}

/** At most this many are remembered; the least recently opened goes first. */
export const MAX_REMEMBERED_PEERS = 20;
/** The longest label kept. */
export const MAX_LABEL_LENGTH = 80;

export type ParsedInspectorUrl = { readonly ok: true; readonly url: string; readonly address: string } | { readonly ok: false; readonly message: string };

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/**
 * Reads an inspector URL as `serveInspector` prints it: `http://<ip>:<port>/<token>/`, the address
 * an IP (the server answers to no name), the token one path segment. A fragment (`#/documents`)
 * is dropped; a query, credentials, https or another path are refused.
 */
export function parseInspectorUrl(text: string): ParsedInspectorUrl {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, message: 'Paste the URL the peer printed: http://127.0.0.1:<port>/<token>/' };
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return { ok: false, message: `Not a URL: ${trimmed.slice(0, 100)}` };
  }
  if (url.protocol !== 'http:') return { ok: false, message: `The inspector is served over http, not ${url.protocol.replace(/:$/, '')}` };
  if (url.username !== '' || url.password !== '') return { ok: false, message: 'The URL must not carry a user name or password' };
  const host = url.hostname;
  if (!IPV4.test(host) && !/^\[[0-9a-f:.]+\]$/i.test(host))
    return { ok: false, message: `The address must be an IP address such as 127.0.0.1 (the inspector answers to no name), not ${host}` };
  if (url.search !== '') return { ok: false, message: 'The URL takes no query (?…)' };
  const token = /^\/([A-Za-z0-9_-]+)\/?$/.exec(url.pathname)?.[1];
  if (token === undefined) return { ok: false, message: 'The URL must end with the token: http://<address>:<port>/<token>/' };
  return { ok: true, url: `${url.origin}/${token}/`, address: url.host };
}
