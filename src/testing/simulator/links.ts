/**
 * The connections the mesh wants: every small peer dials the Big Peer, and some pairs of small
 * peers dial each other (peer to peer). Whenever a link is down, not partitioned, and both of its
 * peers run, it is dialed again after a backoff drawn from the seed (what the WebSocket dialer's
 * reconnection does); a partition holds it down until healed.
 */
import type { SimClock } from './sim-clock.ts';
import type { SimConnection, SimNetwork } from './sim-network.ts';
import type { SimPeer } from './sim-peer.ts';
import type { SimRandom } from './sim-random.ts';

export interface Link {
  readonly dialer: SimPeer;
  readonly acceptor: SimPeer;
  readonly latencyMs: number;
  partitioned: boolean;
  conn: { readonly dialer: SimConnection; readonly acceptor: SimConnection } | undefined;
  /** When a link found down may be dialed again. */
  retryAt: number | undefined;
}

export class Links {
  readonly all: Link[] = [];
  readonly #net: SimNetwork;
  readonly #clock: SimClock;
  readonly #random: SimRandom;
  dials = 0;

  constructor(net: SimNetwork, clock: SimClock, random: SimRandom) {
    this.#net = net;
    this.#clock = clock;
    this.#random = random;
  }

  add(dialer: SimPeer, acceptor: SimPeer, latencyMs: number): void {
    this.all.push({ dialer, acceptor, latencyMs, partitioned: false, conn: undefined, retryAt: 0 });
  }

  of(peer: SimPeer): Link[] {
    return this.all.filter((l) => l.dialer === peer || l.acceptor === peer);
  }

  static label(link: Link): string {
    return `${link.dialer.name}->${link.acceptor.name}`;
  }

  /** Is its connection open at both ends (its session may still be starting)? */
  static isOpen(link: Link): boolean {
    return link.conn !== undefined && !link.conn.dialer.finished && !link.conn.acceptor.finished && link.conn.dialer.open && link.conn.acceptor.open;
  }

  /** Dials every link that is due. */
  tick(): void {
    const now = this.#clock.now();
    for (const link of this.all) {
      if (Links.isOpen(link)) continue;
      if (link.retryAt === undefined) link.retryAt = now + this.#random.int(100, 2_000);
      if (link.partitioned || now < link.retryAt) continue;
      const { dialer, acceptor } = link;
      if (dialer.sync === undefined || acceptor.sync === undefined || dialer.pendingLogin !== undefined || acceptor.pendingLogin !== undefined) continue;
      this.#dial(link, dialer, acceptor);
    }
  }

  #dial(link: Link, dialer: SimPeer, acceptor: SimPeer): void {
    const conn = this.#net.connect(dialer.name, acceptor.name, link.latencyMs);
    link.conn = conn;
    link.retryAt = undefined;
    this.dials++;
    // Refusals and failures show as the connection closing; the link is dialed again then.
    dialer.sync?.dialSession(conn.dialer).catch(() => {});
    acceptor.sync?.acceptSession(conn.acceptor).catch(() => {});
  }

  /** A partition of the link: its connection is lost (noticed after `detectMs`) and it stays down until healed. */
  cut(link: Link, detectMs: number): void {
    link.partitioned = true;
    if (link.conn !== undefined) this.#net.sever(link.conn.dialer, detectMs);
  }

  /** Drops the link's connection now (it is dialed again later unless partitioned). */
  drop(link: Link): void {
    if (link.conn !== undefined) this.#net.sever(link.conn.dialer, 0);
  }
}
