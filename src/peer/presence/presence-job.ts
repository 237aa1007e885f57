/**
 * The presence job: while sync runs, the peer keeps its own presence document in `__presence`
 * (`_id` = its peer key) up to date, as `Internal` transactions (spec 2.6). It writes when sync
 * starts, when its direct links change (debounced: a burst of changes is one write, and a change
 * that leaves the links as last written writes nothing), and on a heartbeat, so that other peers
 * can tell when it was last heard of ("last seen"). Bounded: at most one write in flight, at most
 * one per `debounceMs` for link changes, plus one per `heartbeatMs`.
 */
import { LOG_EVENTS } from '../../shared/log.ts';
import { SyncError } from '../errors.ts';
import { errorMessage } from '../../shared/error-message.ts';
import type { Logger } from '../log/log-hub.ts';
import type { InternalWrites } from '../store/store.ts';
import type { TimerHandle, Timers } from '../time.ts';
import { cleanAppMetadata, cleanDeviceName, presenceDocument, PRESENCE_COLLECTION, type AppMetadata, type PresenceLink } from './presence-document.ts';

/** What a Sync is told of presence (`new Sync({ presence: { deviceName, appMetadata } })`). */
export interface PresenceOptions {
  /** The name this peer shows other peers (an app passes the host name by default). */
  readonly deviceName?: string;
  /** Short strings the app says of itself (its version, a site). Non-string values are written as text. */
  readonly appMetadata?: Readonly<Record<string, string | number | boolean>>;
  /** How often the document is written while nothing changes, so that "last seen" moves (default 60 s). */
  readonly heartbeatMs?: number;
  /** How long a change of links waits, so that a burst of changes is one write (default 1 s). */
  readonly debounceMs?: number;
}

export const DEFAULT_PRESENCE_HEARTBEAT_MS = 60_000;
export const DEFAULT_PRESENCE_DEBOUNCE_MS = 1_000;

/** The timings of the options, checked: `presence/invalid` for a heartbeat under 1 s or a negative debounce. */
export function checkPresenceOptions(options: PresenceOptions): { heartbeatMs: number; debounceMs: number } {
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_PRESENCE_HEARTBEAT_MS;
  const debounceMs = options.debounceMs ?? DEFAULT_PRESENCE_DEBOUNCE_MS;
  if (!(heartbeatMs >= 1000) || !(debounceMs >= 0)) {
    throw new SyncError('presence/invalid', `presence takes a heartbeatMs of 1000 or more and a debounceMs of 0 or more, not ${heartbeatMs} and ${debounceMs}`);
  }
  return { heartbeatMs, debounceMs };
}

export interface PresenceHost {
  readonly writes: Pick<InternalWrites, 'execute'>;
  readonly isClosed: () => boolean;
  readonly timers: Timers;
  readonly logger: Logger;
  readonly peerKey: string;
  /** This peer's direct links now. */
  readonly links: () => readonly PresenceLink[];
  /** Called when the links may have changed; returns an unsubscribe function. */
  readonly onLinksChange: (listener: () => void) => () => void;
}

const UPSERT = `INSERT INTO ${PRESENCE_COLLECTION} DOCUMENTS (:doc) ON ID CONFLICT DO UPDATE`;

function signature(links: readonly PresenceLink[]): string {
  return JSON.stringify([...links].sort((a, b) => (a.peerKey < b.peerKey ? -1 : a.peerKey > b.peerKey ? 1 : 0)));
}

export class PresenceJob {
  readonly #host: PresenceHost;
  readonly deviceName: string | undefined;
  readonly appMetadata: AppMetadata;
  readonly #heartbeatMs: number;
  readonly #debounceMs: number;
  #timer: TimerHandle | undefined;
  #timerKind: 'heartbeat' | 'debounce' | undefined;
  #writing = false;
  #again = false;
  #written: string | undefined;
  #off: (() => void) | undefined;
  #running = false;
  #writes = 0;
  #role: 'big-peer' | 'small-peer' = 'small-peer';

  constructor(host: PresenceHost, options: PresenceOptions) {
    this.#host = host;
    this.deviceName = cleanDeviceName(options.deviceName);
    this.appMetadata = cleanAppMetadata(options.appMetadata);
    const { heartbeatMs, debounceMs } = checkPresenceOptions(options);
    this.#heartbeatMs = heartbeatMs;
    this.#debounceMs = debounceMs;
  }

  /** Writes of the document so far (tests and the inspector). */
  get writes(): number {
    return this.#writes;
  }

  /** Writes the document now, then on link changes and heartbeats, until `stop()`. */
  start(role: 'big-peer' | 'small-peer'): void {
    if (this.#running) return;
    this.#running = true;
    this.#role = role;
    this.#off = this.#host.onLinksChange(() => this.#linksChanged());
    void this.#write();
  }

  stop(): void {
    this.#running = false;
    this.#off?.();
    this.#off = undefined;
    this.#clearTimer();
  }

  #linksChanged(): void {
    if (!this.#running || this.#timerKind === 'debounce') return;
    if (signature(this.#host.links()) === this.#written) return;
    this.#schedule('debounce', this.#debounceMs);
  }

  #schedule(kind: 'heartbeat' | 'debounce', ms: number): void {
    this.#clearTimer();
    this.#timerKind = kind;
    this.#timer = this.#host.timers.setTimeout(() => {
      this.#timer = undefined;
      this.#timerKind = undefined;
      void this.#write();
    }, ms);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#host.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerKind = undefined;
  }

  async #write(): Promise<void> {
    if (!this.#running || this.#host.isClosed()) return;
    if (this.#writing) {
      this.#again = true;
      return;
    }
    this.#writing = true;
    const host = this.#host;
    const links = host.links();
    const doc = presenceDocument({
      peerKey: host.peerKey,
      deviceName: this.deviceName,
      appMetadata: this.appMetadata,
      role: this.#role,
      links,
      updatedAt: host.timers.now(),
    });
    try {
      await host.writes.execute('Internal', 'presence', UPSERT, { doc });
      this.#written = signature(links);
      this.#writes++;
    } catch (error) {
      if (!host.isClosed()) host.logger.warn(LOG_EVENTS.presenceWriteFailed, { reason: 'the store refused the write', error: errorMessage(error) });
    } finally {
      this.#writing = false;
    }
    if (!this.#running) return;
    if (this.#again) {
      this.#again = false;
      if (signature(host.links()) !== this.#written) return this.#schedule('debounce', this.#debounceMs);
    }
    if (this.#timerKind !== 'debounce') this.#schedule('heartbeat', this.#heartbeatMs);
  }
}
