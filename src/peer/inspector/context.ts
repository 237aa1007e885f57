/**
 * What every handler of one inspector shares: the peer, its clock, and the way to push events to
 * every connected session. Built by `createInspector`; handlers never reach the inspector itself.
 */
import type { EventName, EventPayload } from '../../shared/inspector/contract.ts';
import type { Sync } from '../sync/sync.ts';
import type { Timers } from '../time.ts';

export interface InspectorContext {
  readonly sync: Sync;
  /** The peer's clock, in ms since the epoch (the store's, unless the inspector was given another). */
  now(): number;
  /** Timers for coalescing events and for `transactions:hold` (the peer's, unless given others). */
  readonly timers: Timers;
  /** Pushes an event to every open session; a sender that throws is skipped, never the peer. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
}
