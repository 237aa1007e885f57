/**
 * The slices' tests of the Logs, Transactions and Mesh panels: the shared fake bridge
 * (`client/fake-bridge.ts`) with answers given as plain values or error values, and a store
 * holding just the slices under test.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { CallInput, CallName, CallOutput, EventName, EventPayload } from '../../shared/inspector/contract.ts';
import { errorResult, okResult } from '../../shared/inspector/result.ts';
import type { ErrorValue } from '../../shared/error-codes.ts';
import { useBridge } from '../../renderer/src/client/index.ts';
import { createFakeBridge, type FakeBridge } from './fake-bridge.ts';
import type { InspectorState, SliceCreator } from '../../renderer/src/store/types.ts';

type Answer<C extends CallName> = CallOutput<C> | ErrorValue | ((input: CallInput<C>) => CallOutput<C> | ErrorValue);

const isError = (value: unknown): value is ErrorValue => typeof value === 'object' && value !== null && 'code' in value && 'message' in value;

export class TestBridge {
  readonly #fake: FakeBridge = createFakeBridge();

  constructor() {
    // eslint-disable-next-line react-hooks/rules-of-hooks -- useBridge installs a bridge; it is no React Hook
    useBridge(this.#fake.bridge);
  }

  /** What `channel` answers from now on: a value, an error value, or a function of the input. */
  answer<C extends CallName>(channel: C, answer: Answer<C>): this {
    const handler = (input: CallInput<C>) => {
      const value = typeof answer === 'function' ? (answer as (i: CallInput<C>) => CallOutput<C> | ErrorValue)(input) : answer;
      return isError(value) ? errorResult<CallOutput<C>>(value) : okResult(value as CallOutput<C>);
    };
    (this.#fake.handlers as Record<string, unknown>)[channel] = handler;
    return this;
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    this.#fake.emit(event, payload);
  }

  callsTo(channel: CallName): unknown[] {
    return this.#fake.calls.filter((c) => c.channel === channel).map((c) => c.input);
  }
}

/** A store holding only `slices` (enough for the slice under test), wired to a fresh TestBridge. */
export function testStore<S>(...slices: SliceCreator<Partial<InspectorState>>[]): { store: StoreApi<InspectorState & S>; bridge: TestBridge } {
  const bridge = new TestBridge();
  const store = createStore<InspectorState>()((...a) => Object.assign({}, ...slices.map((slice) => slice(...a))) as InspectorState);
  return { store: store as StoreApi<InspectorState & S>, bridge };
}
