/**
 * An in-memory inspector bridge for the slices' tests (of the Logs, Transactions and Mesh
 * panels): calls answer what the test set, events are pushed by hand, and a store is built from
 * just the slices under test.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { CallInput, CallName, CallOutput, EventName, EventPayload, InspectorBridge } from '../../../../shared/inspector/contract.ts';
import { errorResult, okResult, type CallResult } from '../../../../shared/inspector/result.ts';
import type { ErrorValue } from '../../../../shared/error-codes.ts';
import { useBridge } from '../../client/index.ts';
import type { InspectorState, SliceCreator } from '../../store/types.ts';

type Answer<C extends CallName> = CallOutput<C> | ErrorValue | ((input: CallInput<C>) => CallOutput<C> | ErrorValue);

export class TestBridge implements InspectorBridge {
  readonly calls: { channel: CallName; input: unknown }[] = [];
  readonly #answers = new Map<CallName, unknown>();
  readonly #listeners = new Map<EventName, Set<(payload: never) => void>>();

  answer<C extends CallName>(channel: C, answer: Answer<C>): this {
    this.#answers.set(channel, answer);
    return this;
  }

  async call<C extends CallName>(channel: C, input: CallInput<C>): Promise<CallResult<CallOutput<C>>> {
    this.calls.push({ channel, input });
    let answer = this.#answers.get(channel);
    if (typeof answer === 'function') answer = (answer as (i: CallInput<C>) => unknown)(input);
    if (answer === undefined) return errorResult({ code: 'inspector/not-found', message: `no answer for ${channel}` });
    if (typeof answer === 'object' && answer !== null && 'code' in answer && 'message' in answer) return errorResult(answer as ErrorValue);
    return okResult(answer as CallOutput<C>);
  }

  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
    let set = this.#listeners.get(event);
    if (set === undefined) this.#listeners.set(event, (set = new Set()));
    const entry = listener as (payload: never) => void;
    set.add(entry);
    return () => set.delete(entry);
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.#listeners.get(event) ?? []) (listener as (p: EventPayload<E>) => void)(payload);
  }

  callsTo(channel: CallName): unknown[] {
    return this.calls.filter((c) => c.channel === channel).map((c) => c.input);
  }
}

/** A store holding only `slices` (enough for the slice under test), wired to a fresh TestBridge. */
export function testStore<S>(...slices: SliceCreator<Partial<InspectorState>>[]): { store: StoreApi<InspectorState & S>; bridge: TestBridge } {
  const bridge = new TestBridge();
  useBridge(bridge);
  const store = createStore<InspectorState>()((...a) => Object.assign({}, ...slices.map((slice) => slice(...a))) as InspectorState);
  return { store: store as StoreApi<InspectorState & S>, bridge };
}
