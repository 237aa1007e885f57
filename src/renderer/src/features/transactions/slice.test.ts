import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SliceCreator } from '../../store/types.ts';
import { testStore } from '../../../../testing/renderer/test-bridge.ts';
import { TRANSACTIONS_RENDER_INTERVAL_MS, createTransactionsSlice, wireTransactionsEvents, type TransactionsSlice } from './slice.ts';
import { commit, wait } from '../../../../testing/renderer/transaction-entries.ts';

const SLOT = { holder: undefined, waiting: [], openReadTransactions: 2 };

function setup() {
  const { store, bridge } = testStore<TransactionsSlice>(createTransactionsSlice as SliceCreator<Partial<TransactionsSlice>>);
  const stop = wireTransactionsEvents(store);
  return { store, bridge, stop };
}

describe('the Transactions slice', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('applies a burst of commit events together, ten times a second at most', () => {
    const { store, bridge } = setup();
    let renders = 0;
    store.subscribe(() => renders++);
    for (let i = 1; i <= 300; i++) bridge.emit('transactions:committed', commit(i));
    bridge.emit('transactions:waited', wait(5));
    expect(renders).toBe(1);
    vi.advanceTimersByTime(TRANSACTIONS_RENDER_INTERVAL_MS);
    expect(renders).toBe(2);
    expect(store.getState().transactions.commits.items).toHaveLength(300);
    expect(store.getState().transactions.waits.items).toHaveLength(1);
  });

  it('merges the list with what events brought, without duplicates', async () => {
    const { store, bridge } = setup();
    bridge.emit('transactions:committed', commit(3));
    vi.advanceTimersByTime(TRANSACTIONS_RENDER_INTERVAL_MS);
    bridge.answer('transactions:list', { commits: [commit(1), commit(2), commit(3)], waits: [wait(1)], slot: SLOT });
    await store.getState().loadTransactions();
    const { transactions } = store.getState();
    expect(transactions.status).toBe('ready');
    expect(transactions.commits.items.map((c) => c.txnId)).toEqual([1, 2, 3]);
    expect(transactions.slot?.openReadTransactions).toBe(2);
  });

  it('keeps the error of a failed list and the data it had', async () => {
    const { store, bridge } = setup();
    bridge.emit('transactions:committed', commit(1));
    vi.advanceTimersByTime(TRANSACTIONS_RENDER_INTERVAL_MS);
    bridge.answer('transactions:list', { code: 'internal/unexpected', message: 'boom' });
    await store.getState().loadTransactions();
    expect(store.getState().transactions.status).toBe('error');
    expect(store.getState().transactions.commits.items).toHaveLength(1);
  });

  it('polls the slot one call at a time', async () => {
    const { store, bridge } = setup();
    bridge.answer('transactions:slot', SLOT);
    await Promise.all([store.getState().pollWriteSlot(), store.getState().pollWriteSlot()]);
    expect(bridge.callsTo('transactions:slot')).toHaveLength(1);
    expect(store.getState().transactions.slotAt).toBeDefined();
  });

  it('holds the slot for QA: waiting, then held until it ends, never twice at once', async () => {
    const { store, bridge } = setup();
    bridge.answer('transactions:hold', { txnId: 42 }).answer('transactions:slot', SLOT);
    const holding = store.getState().holdWriteSlot(5_000, 'qa');
    expect(store.getState().transactionsView.hold.status).toBe('waiting');
    await store.getState().holdWriteSlot(1_000, 'again');
    await holding;
    expect(bridge.callsTo('transactions:hold')).toEqual([{ ms: 5_000, hint: 'qa' }]);
    expect(store.getState().transactionsView.hold).toMatchObject({ status: 'held', txnId: 42 });
    vi.advanceTimersByTime(5_000);
    expect(store.getState().transactionsView.hold.status).toBe('idle');
  });

  it('shows why a hold was refused', async () => {
    const { store, bridge } = setup();
    bridge.answer('transactions:hold', { code: 'inspector/bad-request', message: 'ms: at most 600000' });
    await store.getState().holdWriteSlot(700_000, 'x');
    expect(store.getState().transactionsView.hold).toMatchObject({ status: 'error', error: { code: 'inspector/bad-request' } });
  });

  it('hides and shows originators', () => {
    const { store } = setup();
    store.getState().toggleOriginator('Replication');
    expect(store.getState().transactionsView.hidden).toEqual(['Replication']);
    store.getState().toggleOriginator('Replication');
    expect(store.getState().transactionsView.hidden).toEqual([]);
  });

  it('lists the transactions again when the link to the peer comes back, filling the gap', async () => {
    const { store, bridge } = setup();
    bridge.answer('transactions:list', { commits: [commit(1)], waits: [], slot: SLOT });
    store.setState({ linkEpoch: 1 });
    await store.getState().loadTransactions();
    bridge.answer('transactions:list', { commits: [commit(1), commit(2), commit(3)], waits: [], slot: SLOT });
    store.setState({ linkEpoch: 2 });
    await vi.waitFor(() => expect(store.getState().transactions.commits.items.map((c) => c.txnId)).toEqual([1, 2, 3]));
  });

  it('ends a running hold early', async () => {
    const { store, bridge } = setup();
    bridge.answer('transactions:hold', { txnId: 7 }).answer('transactions:release', { released: true }).answer('transactions:slot', SLOT);
    await store.getState().holdWriteSlot(60_000, 'qa');
    await store.getState().releaseWriteSlot();
    expect(bridge.callsTo('transactions:release')).toHaveLength(1);
    expect(store.getState().transactionsView.hold.status).toBe('idle');
  });

  it('takes a hold released while it waited for the slot as ended, not failed', async () => {
    const { store, bridge } = setup();
    bridge
      .answer('transactions:hold', () => ({ code: 'inspector/cancelled', message: 'released while queued' }))
      .answer('transactions:release', { released: true });
    await store.getState().holdWriteSlot(60_000, 'qa');
    expect(store.getState().transactionsView.hold.status).toBe('idle');
    expect(store.getState().transactionsView.hold.error).toBeUndefined();
  });
});
