/**
 * The peer side of the inspector contract for one Sync. `createInspector(sync)` is called when
 * the host starts (the Electron main process, `syncmesh inspect`), so that the transaction
 * timeline collects from then on; each connected window or tab gets its own session
 * (`openSession()`), with its own log subscription and query results, and every event.
 * `close()` ends every session and frees everything: no listener, timer or hold is left behind.
 * A session's write-slot hold (`transactions:hold`) is its own: it ends when that session closes.
 * Once a session (or the inspector) is closed, every call on it answers `inspector/closed` and
 * runs nothing; a SELECT still running then keeps no result.
 *
 * Events: `logs:batch` per session, as its log subscription delivers (after the current turn);
 * `transactions:committed`, `store:changed` and `transactions:waited` at each commit and wait;
 * `mesh:changed` and `subscriptions:changed` coalesced, at most one of each per
 * EVENT_COALESCE_MS, with the state at that moment.
 */
import type { EventName, EventPayload, InspectorHandlers, InspectorSession } from '../../shared/inspector/contract.ts';
import { runEvictLoopScenario } from '../scenarios/evict-loop-scenario.ts';
import type { Sync } from '../sync/sync.ts';
import type { TimerHandle, Timers } from '../time.ts';
import type { InspectorContext } from './context.ts';
import { documentsHandlers } from './handlers/documents.ts';
import { traceHandlers } from './handlers/trace.ts';
import { prefsHandlers } from './handlers/prefs.ts';
import { evictionHandlers, type EvictionPort } from './handlers/eviction.ts';
import { EvictionSampler, type EvictionSamplerOptions } from './handlers/eviction-sampler.ts';
import { ScenarioSlot, type ScenarioRunner } from './handlers/eviction-scenario.ts';
import { Holds } from './handlers/holds.ts';
import { closedError } from './handlers/input.ts';
import { logsHandlers } from './handlers/logs.ts';
import { meshHandlers } from './handlers/mesh.ts';
import { meshSnapshot } from './handlers/mesh-model.ts';
import { overviewHandlers } from './handlers/overview.ts';
import { permissionsHandlers } from './handlers/permissions.ts';
import { ResultBudget, ResultCache, type ResultLimits } from './handlers/result-cache.ts';
import { subscriptionsHandlers } from './handlers/subscriptions.ts';
import { Timeline } from './handlers/timeline.ts';
import { transactionsHandlers } from './handlers/transactions.ts';

/** `mesh:changed` and `subscriptions:changed` are pushed at most once per this many ms. */
export const EVENT_COALESCE_MS = 50;

export interface InspectorOptions {
  /** The clock of snapshots and durations (default: the Sync's timers). */
  readonly now?: () => number;
  /** Timers for coalescing events and for holds (default: the Sync's timers). */
  readonly timers?: Timers;
  /** Log entries a session may fall behind by before the oldest are dropped (default 10,000). */
  readonly logCapacity?: number;
  /** How much of SELECT results sessions keep (default DEFAULT_RESULT_LIMITS, result-cache.ts). */
  readonly resultLimits?: Partial<ResultLimits>;
  /** The eviction chart's sampling (default: every second, 15 minutes kept, `process.memoryUsage()`). */
  readonly evictionSampler?: EvictionSamplerOptions;
  /** What `eviction:scenario` runs (default `runEvictLoopScenario`). */
  readonly evictionScenario?: ScenarioRunner;
}

export interface Inspector {
  /** A session for one connected window or tab. Throws once the inspector is closed. */
  openSession(): InspectorSession;
  /** Ends every session and hold and stops listening to the peer. Safe to call twice. */
  close(): void;
}

type Sender = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

interface OpenSession {
  readonly senders: Set<Sender>;
  close(): void;
}

export function createInspector(sync: Sync, options: InspectorOptions = {}): Inspector {
  const timers = options.timers ?? sync.timers;
  const now = options.now ?? (() => sync.timers.now());
  const sessions = new Set<OpenSession>();
  let closed = false;

  const emit = <E extends EventName>(event: E, payload: EventPayload<E>): void => {
    for (const session of sessions) deliver(session, event, payload);
  };
  const ctx: InspectorContext = { sync, now, timers, emit };
  const timeline = new Timeline(ctx);
  const resultBudget = new ResultBudget(options.resultLimits);
  const coalesced = coalescer(ctx, () => sessions.size > 0);
  const eviction: EvictionPort = sync.eviction;
  const sampler = new EvictionSampler(
    ctx,
    { onRun: (listener) => eviction.onRun(listener), configured: () => eviction.snapshot().collections.length > 0 },
    options.evictionSampler,
  );
  const scenarios = new ScenarioSlot(ctx, options.evictionScenario ?? runEvictLoopScenario);
  const off = [
    sync.onConnectionsChange(() => coalesced.mesh()),
    sync.onRemoteSubscriptionsChange(() => coalesced.subscriptions()),
    sync.store.onSubscriptionsChange(() => coalesced.subscriptions()),
    // A run changes the panel's snapshot (last and next run, the history).
    eviction.onRun(() => {
      if (sessions.size > 0) emit('eviction:changed', {});
    }),
  ];

  return {
    openSession(): InspectorSession {
      if (closed) throw new Error('this inspector is closed');
      const senders = new Set<Sender>();
      const results = new ResultCache(resultBudget);
      const holds = new Holds(ctx);
      let open = true;
      const logs = sync.logHub.subscribe(
        (batch) => {
          if (open) deliver(session, 'logs:batch', { entries: batch.entries, dropped: batch.dropped });
        },
        { capacity: options.logCapacity ?? 10_000 },
      );
      const session: OpenSession = {
        senders,
        close: () => {
          if (!open) return;
          open = false;
          sessions.delete(session);
          senders.clear();
          logs.close();
          holds.close();
          results.clear();
          scenarios.cancelFor(session);
        },
      };
      sessions.add(session);
      const handlers: InspectorHandlers = whileOpen(() => open && !closed, {
        ...overviewHandlers(ctx),
        ...documentsHandlers(ctx, results),
        ...traceHandlers(ctx),
        ...prefsHandlers(ctx),
        ...subscriptionsHandlers(ctx),
        ...permissionsHandlers(ctx),
        ...transactionsHandlers(ctx, timeline, holds),
        ...meshHandlers(ctx),
        ...logsHandlers(ctx, logs),
        ...evictionHandlers(ctx, eviction, sampler, scenarios, session),
      });
      return {
        handlers,
        onEvent: (send) => {
          if (open) senders.add(send);
        },
        close: () => session.close(),
      };
    },
    close(): void {
      if (closed) return;
      closed = true;
      for (const o of off.splice(0)) o();
      timeline.close();
      coalesced.close();
      sampler.close();
      scenarios.close();
      for (const session of [...sessions]) session.close();
    },
  };
}

/**
 * The handlers, each answering `inspector/closed` and running nothing once the session or the
 * inspector is closed (a call that arrives late from a bridge, or one made on a kept session).
 */
function whileOpen(isOpen: () => boolean, handlers: InspectorHandlers): InspectorHandlers {
  const gated: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const [channel, handler] of Object.entries(handlers) as [string, (input: unknown) => Promise<unknown>][]) {
    gated[channel] = async (input) => {
      if (!isOpen()) throw closedError(`${channel}: this inspector session is closed; nothing was run`);
      return handler(input);
    };
  }
  return gated as InspectorHandlers;
}

/**
 * Coalesces mesh and subscription changes: the first change arms a timer, and when it fires one
 * event of each kind that changed is pushed with the state then. A change of the remote peers
 * with a session also changes the Subscriptions panel (its remotes), so it pushes both.
 */
function coalescer(ctx: InspectorContext, anyone: () => boolean): { mesh(): void; subscriptions(): void; close(): void } {
  let timer: TimerHandle | undefined;
  let mesh = false;
  let subscriptions = false;
  let remotes = sessionKeys(ctx);
  let closed = false;
  const flush = (): void => {
    timer = undefined;
    const keys = sessionKeys(ctx);
    if (keys !== remotes) subscriptions = true;
    remotes = keys;
    const [m, s] = [mesh, subscriptions];
    mesh = subscriptions = false;
    if (closed || !anyone()) return;
    try {
      if (m) ctx.emit('mesh:changed', meshSnapshot(ctx));
      if (s) ctx.emit('subscriptions:changed', {});
    } catch {
      // A snapshot that cannot be taken now (the store closed) is skipped: the next change brings it.
    }
  };
  const arm = (): void => {
    if (closed || timer !== undefined) return;
    timer = ctx.timers.setTimeout(flush, EVENT_COALESCE_MS);
  };
  return {
    mesh: () => {
      mesh = true;
      arm();
    },
    subscriptions: () => {
      subscriptions = true;
      arm();
    },
    close: () => {
      closed = true;
      if (timer !== undefined) ctx.timers.clearTimeout(timer);
      timer = undefined;
    },
  };
}

function sessionKeys(ctx: InspectorContext): string {
  return ctx.sync.sessions.map((s) => s.remote.peerKey).join(',');
}

function deliver<E extends EventName>(session: OpenSession, event: E, payload: EventPayload<E>): void {
  for (const send of session.senders) {
    try {
      send(event, payload);
    } catch {
      // A window that fails to take an event (closed, or a bug in a bridge) must not break the
      // peer, nor keep the event from the other windows.
    }
  }
}
