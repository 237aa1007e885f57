/**
 * The peer side of the inspector contract for one Sync. `createInspector(sync)` is called when
 * the host starts (the Electron main process, `syncmesh inspect`), so that the transaction
 * timeline collects from then on; each connected window or tab gets its own session
 * (`openSession()`), with its own log subscription and query results, and every event.
 * `close()` ends every session and frees everything: no listener or timer is left behind.
 */
import type { EventName, EventPayload, InspectorHandlers, InspectorSession } from '../../shared/inspector/contract.ts';
import type { Sync } from '../sync.ts';
import type { Timers } from '../time.ts';
import type { InspectorContext } from './context.ts';
import { logsHandlers } from './handlers/logs.ts';
import { overviewHandlers } from './handlers/overview.ts';
import { notYet } from './handlers/pending.ts';

export interface InspectorOptions {
  /** The clock of snapshots and durations (default: the Sync's timers). */
  readonly now?: () => number;
  /** Timers for coalescing events and for holds (default: the Sync's timers). */
  readonly timers?: Timers;
  /** Log entries a session may fall behind by before the oldest are dropped (default 10,000). */
  readonly logCapacity?: number;
}

export interface Inspector {
  /** A session for one connected window or tab. */
  openSession(): InspectorSession;
  /** Ends every session and stops listening to the peer. Safe to call twice. */
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

  return {
    openSession(): InspectorSession {
      if (closed) throw new Error('this inspector is closed');
      const senders = new Set<Sender>();
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
        },
      };
      sessions.add(session);
      const handlers: InspectorHandlers = {
        ...overviewHandlers(ctx),
        ...logsHandlers(ctx, logs),
        'documents:query': notYet,
        'documents:rows': notYet,
        'documents:metadata': notYet,
        'subscriptions:list': notYet,
        'subscriptions:register': notYet,
        'subscriptions:cancel': notYet,
        'permissions:list': notYet,
        'permissions:check': notYet,
        'transactions:list': notYet,
        'transactions:slot': notYet,
        'transactions:hold': notYet,
        'mesh:get': notYet,
      };
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
      for (const session of [...sessions]) session.close();
    },
  };
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
