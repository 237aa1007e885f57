/**
 * The spec's log sequences, checked on each peer's entries as they are made (one checker per
 * peer; an open of its store starts a new process, whose sequence starts again):
 * - commits: `Write txn committed; txn_id = n` with n one more than the last (txn_ids are
 *   consecutive across restarts), followed at once by `Notifying a database change; transaction = n`
 *   (spec 3.5 steps 1-2);
 * - then, when the peer has sessions, the subscriptions and permissions printed again: local
 *   first, then each remote with a session, each once, uninterrupted by other replication lines
 *   (3.5 step 3; the order of the existing log-sequence test);
 * - `Creating a sending update, sending_update_path = <own key>/<remote>/sending_update` names this
 *   peer and a remote whose session started, and its `update creation done` has `since_index`
 *   equal to the last txn_id when the update was begun (2.8), `num_docs = 0` when no update was
 *   created (3.5 steps 4-5); `No next update chunk to send` only after an update that was made (step 6);
 * - `VirtConnElectedNewConn; remote = X` comes after `phy started; remote = X`, and its `old_conn`
 *   is the connection elected before for X, or `none` (3.4 steps 3-4);
 * - no ERROR entry at all, and no malformed frame either way (a protocol bug, since the network
 *   keeps each connection's frames in order).
 * (3.4 steps 1-2, `Discovered` and `ConnectionEstablished`, are the WebSocket dialer's and do
 * not happen over the simulator's in-process connections.)
 */
import { LOG_EVENTS, type LogEntry } from '../../shared/log.ts';

type PrintStage = { stage: 'local-subs' | 'local-perms' | 'remote-subs' } | { stage: 'remote-perms'; remote: string };

interface ProcessState {
  peerKey: string;
  lastTxn: number;
  expectNotify: number | undefined;
  print: (PrintStage & { readonly remotes: ReadonlySet<string>; readonly seen: Set<string> }) | undefined;
  /** Elected connection per remote (the replicator's sessions). */
  readonly sessions: Map<string, string>;
  /** Remotes whose `phy started` was logged and not yet elected. */
  readonly started: string[];
  /** Remotes a session ever started with (update paths name them). */
  readonly known: Set<string>;
  /** `lastTxn` at each `Creating a sending update` not yet done. */
  readonly creating: number[];
  made: number;
  delivered: number;
}

const field = (entry: LogEntry, name: string): string => String(entry.fields[name]);

export class LogSequenceChecker {
  readonly #peer: string;
  readonly #report: (problem: string) => void;
  #state: ProcessState | undefined;
  /** The last txn_id the previous process of this peer committed (consecutive across restarts). */
  #carried: number | undefined;
  entries = 0;

  constructor(peer: string, report: (problem: string) => void) {
    this.#peer = peer;
    this.#report = report;
  }

  #fail(entry: LogEntry, problem: string): void {
    this.#report(`${this.#peer}: ${problem} (at "${entry.message}")`);
  }

  feed(entry: LogEntry): void {
    this.entries++;
    if (entry.level === 'ERROR') this.#fail(entry, 'an ERROR entry');
    if (entry.event === LOG_EVENTS.messageMalformed || entry.event === LOG_EVENTS.remoteError) this.#fail(entry, 'a malformed frame');
    this.#sequence(entry);
  }

  #sequence(entry: LogEntry): void {
    if (entry.event === LOG_EVENTS.storeOpened) return this.#opened(entry);
    const s = this.#state;
    if (s === undefined) return;
    if (s.expectNotify !== undefined) {
      const ok = entry.event === LOG_EVENTS.databaseChangeNotified && Number(entry.fields.transaction) === s.expectNotify;
      if (!ok) this.#fail(entry, `expected "Notifying a database change; transaction = ${s.expectNotify}" right after its commit`);
      s.expectNotify = undefined;
      s.print = s.sessions.size > 0 ? { stage: 'local-subs', remotes: new Set(s.sessions.keys()), seen: new Set() } : undefined;
      return;
    }
    if (entry.component === 'replication' && s.print !== undefined) return this.#printed(s, entry);
    switch (entry.event) {
      case LOG_EVENTS.writeTxnCommitted: {
        const txn = Number(entry.fields.txn_id);
        if (txn !== s.lastTxn + 1) this.#fail(entry, `txn_id ${txn} after ${s.lastTxn}: not consecutive`);
        s.lastTxn = txn;
        this.#carried = txn;
        s.expectNotify = txn;
        return;
      }
      case LOG_EVENTS.subscriptionsPrinted:
      case LOG_EVENTS.permissionsPrinted:
        return this.#fail(entry, 'subscriptions or permissions printed outside the block that follows a commit');
      case LOG_EVENTS.phyStarted:
        s.started.push(field(entry, 'remote'));
        s.known.add(field(entry, 'remote'));
        return;
      case LOG_EVENTS.connectionElected:
        return this.#elected(s, entry);
      case LOG_EVENTS.sessionEnded:
        if (s.sessions.get(field(entry, 'remote')) === field(entry, 'connection')) s.sessions.delete(field(entry, 'remote'));
        return;
      case LOG_EVENTS.updateCreating: {
        const [pkA, pkB, leaf] = field(entry, 'sending_update_path').split('/');
        if (pkA !== s.peerKey || leaf !== 'sending_update' || pkB === undefined || !s.known.has(pkB))
          this.#fail(entry, 'a sending update path that does not name this peer and a remote of a session');
        s.creating.push(s.lastTxn);
        return;
      }
      case LOG_EVENTS.updateCreated: {
        const since = Number(entry.fields.since_index);
        const at = s.creating.indexOf(since);
        if (at < 0) this.#fail(entry, `since_index ${since} is not the last txn_id of any update begun (${s.creating.join(', ') || 'none'})`);
        else s.creating.splice(at, 1);
        const made = entry.fields.new_update_created === true;
        if (!made && Number(entry.fields.num_docs) !== 0) this.#fail(entry, 'documents in an update that was not created');
        if (made) s.made++;
        return;
      }
      case LOG_EVENTS.updateDelivered:
        s.delivered++;
        if (s.delivered > s.made) this.#fail(entry, 'an update delivered that was never created');
        return;
    }
  }

  #opened(entry: LogEntry): void {
    const last = Number(entry.fields.last_txn_id);
    // A new peer key is a wiped store (a reinstall): its txn_ids start again.
    if (this.#state !== undefined && this.#state.peerKey !== field(entry, 'peer_key')) this.#carried = undefined;
    if (this.#carried !== undefined && last !== this.#carried) this.#fail(entry, `reopened at txn_id ${last}, but the last commit logged was ${this.#carried}`);
    this.#carried = last;
    this.#state = {
      peerKey: field(entry, 'peer_key'),
      lastTxn: last,
      expectNotify: undefined,
      print: undefined,
      sessions: new Map(),
      started: [],
      known: new Set(),
      creating: [],
      made: 0,
      delivered: 0,
    };
  }

  #elected(s: ProcessState, entry: LogEntry): void {
    const remote = field(entry, 'remote');
    const at = s.started.lastIndexOf(remote);
    if (at < 0) this.#fail(entry, 'a connection elected without "phy started" for its remote before it');
    else s.started.splice(at, 1);
    const old = entry.fields.old_conn === '' ? undefined : field(entry, 'old_conn');
    const before = s.sessions.get(remote);
    if (old !== before) this.#fail(entry, `old_conn ${old ?? 'none'}, but the connection elected before was ${before ?? 'none'}`);
    s.sessions.set(remote, field(entry, 'new_conn'));
  }

  #printed(s: ProcessState, entry: LogEntry): void {
    const print = s.print as NonNullable<ProcessState['print']>;
    const peer = field(entry, 'peer');
    const is = (event: string, who?: string): boolean => entry.event === event && (who === undefined || peer === who);
    const next = (stage: PrintStage): void => {
      s.print = { ...stage, remotes: print.remotes, seen: print.seen };
    };
    switch (print.stage) {
      case 'local-subs':
        if (!is(LOG_EVENTS.subscriptionsPrinted, 'local')) return this.#interrupted(s, entry, 'the local subscriptions');
        return next({ stage: 'local-perms' });
      case 'local-perms':
        if (!is(LOG_EVENTS.permissionsPrinted, 'local')) return this.#interrupted(s, entry, 'the local permissions');
        if (print.remotes.size === 0) s.print = undefined;
        else next({ stage: 'remote-subs' });
        return;
      case 'remote-subs':
        if (!is(LOG_EVENTS.subscriptionsPrinted) || !print.remotes.has(peer) || print.seen.has(peer)) {
          return this.#interrupted(
            s,
            entry,
            `the subscriptions of a remote not yet printed (${[...print.remotes].filter((r) => !print.seen.has(r)).join(', ')})`,
          );
        }
        return next({ stage: 'remote-perms', remote: peer });
      case 'remote-perms':
        if (!is(LOG_EVENTS.permissionsPrinted, print.remote)) return this.#interrupted(s, entry, `the permissions of ${print.remote}`);
        print.seen.add(print.remote);
        if (print.seen.size === print.remotes.size) s.print = undefined;
        else next({ stage: 'remote-subs' });
        return;
    }
  }

  #interrupted(s: ProcessState, entry: LogEntry, wanted: string): void {
    s.print = undefined;
    this.#fail(entry, `after a commit with sessions, expected ${wanted} to be printed`);
    this.#sequence(entry);
  }
}
