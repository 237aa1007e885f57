/**
 * The Transactions panel's slice: `transactions` (commits, blocked waits, the write slot as last
 * polled) and `transactionsView` (time window, hidden originators, selection, the QA hold).
 *
 * Commits and waits are collected from the start (events are wired with the store), merged with
 * `transactions:list` when the panel opens; events are applied ten times a second at most.
 */
import type { ErrorValue } from '../../../../shared/error-codes.ts';
import type { BlockedWaitEntry, TransactionEntry, WriteSlotState } from '../../../../shared/inspector/transactions.ts';
import type { Originator } from '../../../../shared/transactions.ts';
import { inspector } from '../../client/index.ts';
import { onLinkReopened } from '../../shell/slice.ts';
import { throttle } from '../../store/throttle.ts';
import type { EventWiring, SliceCreator } from '../../store/types.ts';
import { TIMELINE_CAPACITY, commitKey, commitOrder, mergeBounded, waitKey, waitOrder, type Bounded } from './transactions-model.ts';

export const TRANSACTIONS_RENDER_INTERVAL_MS = 100;

/** Time windows the timeline offers, with their names. */
export const TIMELINE_WINDOWS = [
  { ms: 10_000, label: '10 s' },
  { ms: 60_000, label: '1 min' },
  { ms: 300_000, label: '5 min' },
  { ms: 900_000, label: '15 min' },
] as const;

export type Selection = { readonly kind: 'commit'; readonly txnId: number } | { readonly kind: 'wait'; readonly key: string } | undefined;

export interface HoldState {
  /** `waiting`: asked, the slot is not ours yet; `held`: ours until `endsAt` (viewer's clock). */
  readonly status: 'idle' | 'waiting' | 'held' | 'error';
  readonly ms: number;
  readonly hint: string;
  readonly txnId: number | undefined;
  readonly endsAt: number | undefined;
  readonly error: ErrorValue | undefined;
}

export interface TransactionsData {
  readonly commits: Bounded<TransactionEntry>;
  readonly waits: Bounded<BlockedWaitEntry>;
  /** `transactions:list`, asked each time the panel opens. */
  readonly status: 'idle' | 'loading' | 'ready' | 'error';
  readonly error: ErrorValue | undefined;
  readonly slot: WriteSlotState | undefined;
  /** The viewer's time when `slot` arrived; durations in it grow from there. */
  readonly slotAt: number | undefined;
  readonly slotError: ErrorValue | undefined;
}

export interface TransactionsView {
  readonly windowMs: number;
  /** Frozen at this time (the viewer's clock), or following now. */
  readonly frozenAt: number | undefined;
  readonly hidden: readonly Originator[];
  readonly selected: Selection;
  readonly tab: 'commits' | 'waits';
  readonly hold: HoldState;
}

export interface TransactionsSlice {
  readonly transactions: TransactionsData;
  readonly transactionsView: TransactionsView;
  loadTransactions(): Promise<void>;
  pollWriteSlot(): Promise<void>;
  receiveTransactions(commits: readonly TransactionEntry[], waits: readonly BlockedWaitEntry[]): void;
  holdWriteSlot(ms: number, hint: string): Promise<void>;
  /** Ends this inspector's hold, running or still waiting for the slot. */
  releaseWriteSlot(): Promise<void>;
  setTimelineWindow(windowMs: number): void;
  freezeTimeline(frozen: boolean): void;
  toggleOriginator(originator: Originator): void;
  selectTransaction(selection: Selection): void;
  setTransactionsTab(tab: 'commits' | 'waits'): void;
}

const IDLE_HOLD: HoldState = { status: 'idle', ms: 15_000, hint: 'inspector hold', txnId: undefined, endsAt: undefined, error: undefined };

export const createTransactionsSlice: SliceCreator<TransactionsSlice> = (set, get) => {
  const setView = (patch: Partial<TransactionsView>): void => set((s) => ({ transactionsView: { ...s.transactionsView, ...patch } }));
  const setData = (patch: Partial<TransactionsData>): void => set((s) => ({ transactions: { ...s.transactions, ...patch } }));
  let polling = false;

  return {
    transactions: {
      commits: { items: [], dropped: 0 },
      waits: { items: [], dropped: 0 },
      status: 'idle',
      error: undefined,
      slot: undefined,
      slotAt: undefined,
      slotError: undefined,
    },
    transactionsView: { windowMs: 60_000, frozenAt: undefined, hidden: [], selected: undefined, tab: 'commits', hold: IDLE_HOLD },

    async loadTransactions() {
      setData({ status: 'loading' });
      const result = await inspector.call('transactions:list', {});
      if (!result.ok) {
        setData({ status: 'error', error: result.error });
        return;
      }
      const { commits, waits, slot } = result.value;
      set((s) => ({
        transactions: {
          ...s.transactions,
          status: 'ready',
          error: undefined,
          commits: mergeBounded(s.transactions.commits, commits, commitKey, commitOrder),
          waits: mergeBounded(s.transactions.waits, waits, waitKey, waitOrder),
          slot,
          slotAt: Date.now(),
          slotError: undefined,
        },
      }));
    },

    async pollWriteSlot() {
      // One poll at a time: a slow peer is not asked again before it answered.
      if (polling) return;
      polling = true;
      try {
        const result = await inspector.call('transactions:slot', {});
        if (result.ok) setData({ slot: result.value, slotAt: Date.now(), slotError: undefined });
        else setData({ slotError: result.error });
      } finally {
        polling = false;
      }
    },

    receiveTransactions(commits, waits) {
      set((s) => {
        const merged = {
          commits: mergeBounded(s.transactions.commits, commits, commitKey, commitOrder),
          waits: mergeBounded(s.transactions.waits, waits, waitKey, waitOrder),
        };
        if (merged.commits === s.transactions.commits && merged.waits === s.transactions.waits) return s;
        return { transactions: { ...s.transactions, ...merged } };
      });
    },

    async holdWriteSlot(ms, hint) {
      const current = get().transactionsView.hold;
      if (current.status === 'waiting' || current.status === 'held') return;
      setView({ hold: { ...IDLE_HOLD, status: 'waiting', ms, hint } });
      const result = await inspector.call('transactions:hold', { ms, hint });
      if (!result.ok) {
        // Released while it waited for the slot: nothing was held, and that is no error.
        if (result.error.code === 'inspector/cancelled') setView({ hold: { ...IDLE_HOLD, ms, hint } });
        else setView({ hold: { ...IDLE_HOLD, status: 'error', ms, hint, error: result.error } });
        return;
      }
      // Released before its answer came back: it is over already.
      if (get().transactionsView.hold.status !== 'waiting') return;
      const endsAt = Date.now() + ms;
      setView({ hold: { status: 'held', ms, hint, txnId: result.value.txnId, endsAt, error: undefined } });
      void get().pollWriteSlot();
      setTimeout(() => {
        const hold = get().transactionsView.hold;
        if (hold.status === 'held' && hold.endsAt === endsAt) setView({ hold: { ...IDLE_HOLD, ms, hint } });
      }, ms);
    },

    async releaseWriteSlot() {
      const hold = get().transactionsView.hold;
      if (hold.status !== 'waiting' && hold.status !== 'held') return;
      const result = await inspector.call('transactions:release', {});
      if (!result.ok) {
        setView({ hold: { ...hold, error: result.error } });
        return;
      }
      setView({ hold: { ...IDLE_HOLD, ms: hold.ms, hint: hold.hint } });
      void get().pollWriteSlot();
    },

    setTimelineWindow(windowMs) {
      setView({ windowMs });
    },

    freezeTimeline(frozen) {
      setView({ frozenAt: frozen ? Date.now() : undefined });
    },

    toggleOriginator(originator) {
      const hidden = get().transactionsView.hidden;
      setView({ hidden: hidden.includes(originator) ? hidden.filter((o) => o !== originator) : [...hidden, originator] });
    },

    selectTransaction(selected) {
      // A bar picked in the timeline shows its row: the tab follows the kind of entry.
      if (selected === undefined) setView({ selected });
      else setView({ selected, tab: selected.kind === 'commit' ? 'commits' : 'waits' });
    },

    setTransactionsTab(tab) {
      setView({ tab });
    },
  };
};

export const wireTransactionsEvents: EventWiring = (store) => {
  let commits: TransactionEntry[] = [];
  let waits: BlockedWaitEntry[] = [];
  const flush = throttle(() => {
    const batch = { commits, waits };
    commits = [];
    waits = [];
    store.getState().receiveTransactions(batch.commits, batch.waits);
  }, TRANSACTIONS_RENDER_INTERVAL_MS);
  // Only the last TIMELINE_CAPACITY can be kept anyway: a backlog (a throttled background tab) stays bounded.
  const offCommitted = inspector.on('transactions:committed', (entry) => {
    if (commits.push(entry) > 2 * TIMELINE_CAPACITY) commits = commits.slice(-TIMELINE_CAPACITY);
    flush();
  });
  const offWaited = inspector.on('transactions:waited', (entry) => {
    if (waits.push(entry) > 2 * TIMELINE_CAPACITY) waits = waits.slice(-TIMELINE_CAPACITY);
    flush();
  });
  // Events pushed while the link was down are lost: once it is back, the list fills the gap.
  const stopLink = onLinkReopened(store, () => {
    if (store.getState().transactions.status !== 'idle') void store.getState().loadTransactions();
  });
  return () => {
    offCommitted();
    offWaited();
    stopLink();
    flush.cancel();
  };
};
