/**
 * The simulated network: connections between peers of one process whose frames the simulator
 * delivers, on its clock, when it chooses. What it may and may not do to frames:
 * - within one connection and one direction, frames (and the close after them) stay in the order
 *   they were sent, as over the WebSocket the protocol runs on (chunks out of order are
 *   malformed, spec-wise a different transport);
 * - each frame takes the connection's latency plus jitter, so frames of different connections
 *   (and the two directions of one) arrive in another order than they were sent: that is the
 *   reordering the protocol must tolerate;
 * - a partition (`sever`) loses every frame in flight and every frame sent after it, and each end
 *   learns of it only after a detection delay (1006, as a keepalive timeout would);
 * - a crash loses what was on its way to the crashed peer; what it sent before is still
 *   delivered, then the other end sees 1006.
 * Frames that reach an end after it called close(), but before its close completed, are still
 * delivered (as WebSocket does; the session must ignore them).
 */
import { Inbox, connectionId, type Connection, type ConnectionEvents } from '../../peer/replication/connection.ts';
import type { SimRandom } from './sim-random.ts';

export const CONNECTION_LOST = 1006;

interface Item {
  readonly at: number;
  readonly seq: number;
  readonly to: SimConnection;
  readonly text?: string;
  readonly close?: { readonly code: number; readonly reason: string };
}

interface Pair {
  readonly ends: readonly [SimConnection, SimConnection];
  severed: boolean;
}

export class SimConnection implements Connection {
  readonly id = connectionId('Memory');
  readonly type = 'Memory' as const;
  readonly inbox = new Inbox();
  readonly dialed: boolean;
  readonly owner: string;
  readonly remoteAddress: string;
  other!: SimConnection;
  pair!: Pair;
  open = true;
  /** Its close event was delivered (or it died with its peer): nothing more reaches it. */
  finished = false;
  /** When the last frame this end sent arrives: the next may not arrive before. */
  lastAt = 0;
  readonly #net: SimNetwork;

  constructor(net: SimNetwork, owner: string, remoteOwner: string, dialed: boolean) {
    this.#net = net;
    this.owner = owner;
    this.dialed = dialed;
    this.remoteAddress = `sim://${remoteOwner}`;
  }

  get isOpen(): boolean {
    return this.open;
  }

  send(text: string): void {
    if (!this.open) return;
    this.#net.transmit(this, { text });
    this.#net.onSent?.(this, text);
  }

  close(code: number, reason: string): void {
    if (!this.open) return;
    this.open = false;
    this.#net.transmit(this, { close: { code, reason } });
  }

  listen(events: ConnectionEvents): void {
    this.inbox.listen(events);
  }
}

export class SimNetwork {
  readonly #now: () => number;
  readonly #random: SimRandom;
  /** Sorted by (at, seq). */
  #queue: Item[] = [];
  #seq = 0;
  readonly #pairs = new Set<Pair>();
  readonly #latency = new Map<Pair, number>();
  /** Frames delivered since the start (the simulator's measure of activity). */
  delivered = 0;
  /** Hears every frame as it is sent, and as it is delivered (targeted faults hook in here). */
  onSent: ((from: SimConnection, text: string) => void) | undefined;
  onDelivered: ((to: SimConnection, text: string) => void) | undefined;

  constructor(now: () => number, random: SimRandom) {
    this.#now = now;
    this.#random = random;
  }

  /** A new connection from `dialer` to `acceptor`, each way `latencyMs` plus jitter. */
  connect(dialer: string, acceptor: string, latencyMs: number): { dialer: SimConnection; acceptor: SimConnection } {
    const d = new SimConnection(this, dialer, acceptor, true);
    const a = new SimConnection(this, acceptor, dialer, false);
    const pair: Pair = { ends: [d, a], severed: false };
    d.other = a;
    a.other = d;
    d.pair = a.pair = pair;
    this.#pairs.add(pair);
    this.#latency.set(pair, latencyMs);
    return { dialer: d, acceptor: a };
  }

  get inFlight(): number {
    return this.#queue.length;
  }

  /** @internal A frame or a close leaves `from`. */
  transmit(from: SimConnection, what: { text?: string; close?: { code: number; reason: string } }): void {
    const pair = from.pair;
    if (pair.severed) {
      // The close of a severed connection completes locally; its frames go nowhere.
      if (what.close !== undefined) this.#enqueue(from, this.#now(), { close: what.close });
      return;
    }
    const latency = this.#latency.get(pair) ?? 0;
    const at = Math.max(from.lastAt, this.#now() + latency + this.#random.int(0, Math.ceil(latency / 2)));
    from.lastAt = at;
    this.#enqueue(from.other, at, what);
    // A close completes for the closing side when the other side has it.
    if (what.close !== undefined) this.#enqueue(from, at, { close: what.close });
  }

  #enqueue(to: SimConnection, at: number, what: { text?: string; close?: { code: number; reason: string } }): void {
    const item: Item = { at, seq: this.#seq++, to, ...what };
    let lo = 0;
    let hi = this.#queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = this.#queue[mid] as Item;
      if (m.at < at || (m.at === at && m.seq < item.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.#queue.splice(lo, 0, item);
  }

  /** Delivers everything due by now, in time order; returns how many items were delivered. */
  deliverDue(): number {
    let count = 0;
    const now = this.#now();
    while (this.#queue.length > 0 && (this.#queue[0] as Item).at <= now) {
      const item = this.#queue.shift() as Item;
      const to = item.to;
      if (to.finished) continue;
      count++;
      this.delivered++;
      if (item.close !== undefined) {
        to.open = false;
        to.finished = true;
        if (to.other.finished) this.#forget(to.pair);
        to.inbox.close(item.close.code, item.close.reason);
      } else {
        to.inbox.message(item.text as string);
        this.onDelivered?.(to, item.text as string);
      }
    }
    return count;
  }

  /** A partition between the two ends: what is in flight is lost; each end learns of it after `detectMs`. */
  sever(end: SimConnection, detectMs: number): void {
    const pair = end.pair;
    if (pair.severed) return;
    pair.severed = true;
    this.#queue = this.#queue.filter((item) => item.to !== pair.ends[0] && item.to !== pair.ends[1]);
    for (const e of pair.ends) {
      e.open = false;
      if (!e.finished) this.#enqueue(e, this.#now() + detectMs, { close: { code: CONNECTION_LOST, reason: 'connection lost' } });
    }
  }

  /** The peer `owner` died: nothing reaches its ends any more; the other ends see 1006 after what it sent. */
  crash(owner: string, detectMs: number): void {
    for (const pair of [...this.#pairs]) {
      for (const end of pair.ends) {
        if (end.owner !== owner) continue;
        end.open = false;
        end.finished = true;
        this.#queue = this.#queue.filter((item) => item.to !== end);
        const other = end.other;
        if (!other.finished) {
          const at = Math.max(end.lastAt, this.#now()) + detectMs;
          this.#enqueue(other, at, { close: { code: CONNECTION_LOST, reason: 'connection lost' } });
        }
        pair.severed = true;
      }
    }
  }

  #forget(pair: Pair): void {
    this.#pairs.delete(pair);
    this.#latency.delete(pair);
  }
}
