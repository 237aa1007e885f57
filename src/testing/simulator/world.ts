/**
 * Everything a step of the simulation may act on, and how it reports: the peers, the network and
 * its links, the logins, the ledger of commits, the clock and the one random stream.
 */
import type { Ledger } from './ledger.ts';
import type { Links } from './links.ts';
import type { SimAuth } from './sim-auth.ts';
import type { SimClock } from './sim-clock.ts';
import type { SimNetwork } from './sim-network.ts';
import type { SimPeer } from './sim-peer.ts';
import type { SimRandom } from './sim-random.ts';

/** What a violation is of (docs/simulator.md lists them). */
export type ViolationKind = 'log-sequence' | 'arrival' | 'operation' | 'quiescence' | 'entitlement' | 'freshness' | 'unreached' | 'lost-write' | 'counter';

export interface Violation {
  readonly kind: ViolationKind;
  /** The step it was found at (the last step for what the final checks find). */
  readonly step: number;
  readonly message: string;
}

/** Counts of what a run did, printed with its result. */
export interface SimStats {
  writes: number;
  failedWrites: number;
  evicts: number;
  subscriptionChanges: number;
  permissionChanges: number;
  partitions: number;
  crashes: number;
  wipes: number;
  pauses: number;
  /**
   * Documents a peer holds ahead of the Big Peer, in a collection it may not write: a relayed
   * state the Big Peer (and every peer) refuses from it, whose writer lost it before uploading
   * (EVICT, wipe). Not a violation: the design refuses relays by peers that may not write.
   */
  orphaned: number;
}

export function emptyStats(): SimStats {
  return { writes: 0, failedWrites: 0, evicts: 0, subscriptionChanges: 0, permissionChanges: 0, partitions: 0, crashes: 0, wipes: 0, pauses: 0, orphaned: 0 };
}

export interface World {
  readonly random: SimRandom;
  readonly clock: SimClock;
  readonly net: SimNetwork;
  readonly links: Links;
  readonly auth: SimAuth;
  readonly ledger: Ledger;
  readonly big: SimPeer;
  readonly smalls: readonly SimPeer[];
  readonly stats: SimStats;
  /** The step being run (0 during set-up). */
  step: number;
  violation(kind: ViolationKind, message: string): void;
  /** Follows an operation started now on `peer`: an error is a finding unless the peer crashed meanwhile or it is expected. */
  track(peer: SimPeer, what: string, operation: Promise<unknown>, expected?: (error: unknown) => boolean): void;
  /** Lets time pass: the clock, timers, frames due, and the event loop. */
  advance(ms: number): Promise<void>;
}
