/**
 * An in-memory bridge for tests of slices: answers calls from handlers given per channel,
 * records every call, and pushes events on demand. Install it with `useBridge(fake.bridge)`.
 */
import type { CallInput, CallName, CallOutput, EventName, EventPayload, InspectorBridge } from '../../shared/inspector/contract.ts';
import type { CallResult } from '../../shared/inspector/result.ts';

export type FakeHandlers = { [C in CallName]?: (input: CallInput<C>) => CallResult<CallOutput<C>> | Promise<CallResult<CallOutput<C>>> };

export interface FakeBridge {
  readonly bridge: InspectorBridge;
  /** Every call made, in order. */
  readonly calls: { readonly channel: CallName; readonly input: unknown }[];
  readonly handlers: FakeHandlers;
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
}

export function createFakeBridge(handlers: FakeHandlers = {}): FakeBridge {
  const calls: { channel: CallName; input: unknown }[] = [];
  const listeners = new Map<EventName, Set<(payload: never) => void>>();
  const bridge: InspectorBridge = {
    async call<C extends CallName>(channel: C, input: CallInput<C>): Promise<CallResult<CallOutput<C>>> {
      calls.push({ channel, input });
      const handler = handlers[channel] as ((input: CallInput<C>) => CallResult<CallOutput<C>> | Promise<CallResult<CallOutput<C>>>) | undefined;
      if (handler === undefined) return { ok: false, error: { code: 'inspector/bad-request', message: `no fake handler for ${channel}` } };
      return handler(input);
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
      let set = listeners.get(event);
      if (set === undefined) listeners.set(event, (set = new Set()));
      const entry = listener as (payload: never) => void;
      set.add(entry);
      return () => set.delete(entry);
    },
  };
  return {
    bridge,
    calls,
    handlers,
    emit(event, payload) {
      for (const listener of listeners.get(event) ?? []) (listener as (p: typeof payload) => void)(payload);
    },
  };
}
