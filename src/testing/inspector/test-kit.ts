/**
 * TEST FIXTURE: a Sync (in memory, or in a temporary directory) on a manual clock with its own
 * log hub, an inspector on it, and a session whose events are recorded; `call` goes through
 * `serveCall`, as the bridges do, so that tests check the contract itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallName, CallOutput, EventName, EventPayload, InspectorSession } from '../../shared/inspector/contract.ts';
import type { ErrorValue } from '../../shared/error-codes.ts';
import { LogHub } from '../../peer/log/log-hub.ts';
import { Sync, type SyncOptions } from '../../peer/sync/sync.ts';
import { ManualTimers } from '../../peer/time.ts';
import { createInspector, type Inspector, type InspectorOptions } from '../../peer/inspector/inspector.ts';
import { serveCall } from '../../peer/inspector/serve-call.ts';

export interface RecordedEvent {
  readonly event: EventName;
  readonly payload: unknown;
}

export interface InspectorKit {
  readonly sync: Sync;
  readonly clock: ManualTimers;
  readonly hub: LogHub;
  readonly inspector: Inspector;
  readonly session: InspectorSession;
  readonly events: RecordedEvent[];
  /** Calls through serveCall; resolves with the value, or throws the error value as `{ error }`. */
  call<C extends CallName>(channel: C, input?: unknown): Promise<CallOutput<C>>;
  /** Calls through serveCall and answers the error value (failing if the call succeeded). */
  fail(channel: string, input?: unknown): Promise<ErrorValue>;
  eventsOf<E extends EventName>(event: E): EventPayload<E>[];
  dispose(): void;
}

export class CallFailed extends Error {
  readonly error: ErrorValue;
  constructor(error: ErrorValue) {
    super(`${error.code}: ${error.message}`);
    this.error = error;
  }
}

const dirs: string[] = [];

/** A temporary directory removed by `removeTempDirs()`. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'inspector-'));
  dirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function inspectorKit(
  options: { sync?: Partial<SyncOptions>; inspector?: InspectorOptions; clock?: ManualTimers; minimumLogLevel?: 'DEBUG' | 'INFO' } = {},
): InspectorKit {
  const clock = options.clock ?? new ManualTimers();
  const hub = new LogHub({ now: () => clock.now(), minimumLogLevel: options.minimumLogLevel ?? 'DEBUG' });
  const sync = new Sync({ inMemory: true, logHub: hub, timers: clock, ...options.sync });
  const inspector = createInspector(sync, options.inspector);
  const session = inspector.openSession();
  const events: RecordedEvent[] = [];
  session.onEvent((event, payload) => events.push({ event, payload }));
  return {
    sync,
    clock,
    hub,
    inspector,
    session,
    events,
    async call(channel, input = {}) {
      const result = await serveCall(session.handlers, channel, input);
      if (!result.ok) throw new CallFailed(result.error);
      return result.value as CallOutput<typeof channel>;
    },
    async fail(channel, input = {}) {
      const result = await serveCall(session.handlers, channel, input);
      if (result.ok) throw new Error(`${channel} succeeded: ${JSON.stringify(result.value).slice(0, 200)}`);
      return result.error;
    },
    eventsOf(event) {
      return events.filter((e) => e.event === event).map((e) => e.payload) as EventPayload<typeof event>[];
    },
    dispose() {
      inspector.close();
      sync.close();
    },
  };
}

/** Lets pending setImmediate work (log batches, observers) run. */
export async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}
