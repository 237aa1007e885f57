/**
 * "Connect to a running peer", main side: the inspector of a peer this app does not host (an
 * app's own peer through `serveInspector`, `syncmesh inspect`, a Big Peer's `--inspect-port`)
 * opens in a window of its own at the URL that peer printed, and is remembered in
 * `<userData>/remote-peers.json` (the most recently opened first, at most 20). The page reaches
 * this through the preload (`DesktopApi.peers`); only the app's own page may.
 *
 * The remote page is the same renderer, served by that peer with its contract over a WebSocket
 * of its own origin: its window gets no preload, so it never reaches this process, and it may
 * navigate only within its own origin.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IPC_PEERS_FORGET_CHANNEL, IPC_PEERS_LIST_CHANNEL, IPC_PEERS_OPEN_CHANNEL } from '../shared/inspector/ipc.ts';
import { MAX_LABEL_LENGTH, MAX_REMEMBERED_PEERS, parseInspectorUrl, type RemotePeerEntry } from '../shared/inspector/remote-peers.ts';
import { errorResult, type CallResult } from '../shared/inspector/result.ts';
import type { IpcInvokeEventLike, IpcMainLike } from './ipc-bridge.ts';

export const REMOTE_PEERS_FILE = 'remote-peers.json';

/** The remembered peers, kept in a JSON file (written whole, through a temporary file and a rename). */
export class RemotePeerList {
  readonly #file: string;
  #entries: RemotePeerEntry[];

  constructor(userDataDir: string) {
    this.#file = join(userDataDir, REMOTE_PEERS_FILE);
    this.#entries = readEntries(this.#file);
  }

  list(): readonly RemotePeerEntry[] {
    return this.#entries;
  }

  /** Puts `url` first with its label (the one given, else the one it had, else its address). */
  remember(url: string, address: string, label: string | undefined, now: number): RemotePeerEntry {
    const before = this.#entries.find((e) => e.url === url);
    const given = label?.trim().slice(0, MAX_LABEL_LENGTH);
    const entry: RemotePeerEntry = { url, label: given !== undefined && given !== '' ? given : (before?.label ?? address), lastOpenedAt: now };
    this.#entries = [entry, ...this.#entries.filter((e) => e.url !== url)].slice(0, MAX_REMEMBERED_PEERS);
    this.#save();
    return entry;
  }

  forget(url: string): void {
    const kept = this.#entries.filter((e) => e.url !== url);
    if (kept.length === this.#entries.length) return;
    this.#entries = kept;
    this.#save();
  }

  #save(): void {
    const temporary = `${this.#file}.tmp`;
    writeFileSync(temporary, `${JSON.stringify({ peers: this.#entries }, null, 2)}\n`);
    renameSync(temporary, this.#file);
  }
}

/** The file's entries; a missing or damaged file is an empty list (it is only a convenience), and a bad entry is dropped. */
function readEntries(file: string): RemotePeerEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  const peers = (parsed as { peers?: unknown } | null)?.peers;
  if (!Array.isArray(peers)) return [];
  const entries: RemotePeerEntry[] = [];
  for (const value of peers) {
    const { url, label, lastOpenedAt } = (value ?? {}) as Partial<Record<keyof RemotePeerEntry, unknown>>;
    if (typeof url !== 'string' || typeof label !== 'string' || typeof lastOpenedAt !== 'number') continue;
    const checked = parseInspectorUrl(url);
    if (!checked.ok || checked.url !== url || entries.some((e) => e.url === url)) continue;
    entries.push({ url, label: label.slice(0, MAX_LABEL_LENGTH), lastOpenedAt });
  }
  return entries.slice(0, MAX_REMEMBERED_PEERS);
}

export interface RemotePeersIpcOptions {
  readonly ipcMain: IpcMainLike;
  readonly list: RemotePeerList;
  /** Opens (or focuses) the window of an inspector URL; rejects when it cannot. */
  readonly openWindow: (url: string, label: string) => Promise<void>;
  readonly isTrustedSender: (event: IpcInvokeEventLike) => boolean;
  readonly now?: () => number;
}

const REFUSED: CallResult<never> = errorResult({ code: 'inspector/bad-request', message: 'this window may not open peers' });

/** Handles the page's `peers` calls; returns the function that removes the handlers. */
export function registerRemotePeersIpc(options: RemotePeersIpcOptions): () => void {
  const { ipcMain, list, openWindow, isTrustedSender } = options;
  const now = options.now ?? Date.now;
  ipcMain.handle(IPC_PEERS_LIST_CHANNEL, (event) => (isTrustedSender(event) ? list.list() : []));
  ipcMain.handle(IPC_PEERS_OPEN_CHANNEL, async (event, input): Promise<CallResult<RemotePeerEntry>> => {
    if (!isTrustedSender(event)) return REFUSED;
    const { url, label } = (input ?? {}) as { url?: unknown; label?: unknown };
    if (typeof url !== 'string' || (label !== undefined && typeof label !== 'string'))
      return errorResult({ code: 'inspector/bad-request', message: 'open takes { url, label? }, both text' });
    const parsed = parseInspectorUrl(url);
    if (!parsed.ok) return errorResult({ code: 'inspector/bad-request', message: parsed.message });
    const title = label?.trim() || list.list().find((e) => e.url === parsed.url)?.label || parsed.address;
    try {
      await openWindow(parsed.url, title);
    } catch (error) {
      // Not remembered: a URL that never opened (a stopped peer, a stale token) is no peer to come back to.
      return errorResult({ code: 'inspector/not-found', message: `Could not open ${parsed.url}: ${(error as Error).message}` });
    }
    return { ok: true, value: list.remember(parsed.url, parsed.address, label, now()) };
  });
  ipcMain.handle(IPC_PEERS_FORGET_CHANNEL, (event, input) => {
    if (!isTrustedSender(event)) return;
    const { url } = (input ?? {}) as { url?: unknown };
    if (typeof url === 'string') list.forget(url);
  });
  return () => {
    for (const channel of [IPC_PEERS_LIST_CHANNEL, IPC_PEERS_OPEN_CHANNEL, IPC_PEERS_FORGET_CHANNEL]) ipcMain.removeHandler(channel);
  };
}
