/** The Transactions panel's slice: `transactions` (peer data) and `transactionsView` (the inspector's own state). */
import type { EventWiring, SliceCreator } from '../../store/types.ts';

export interface TransactionsSlice {
  readonly transactionsView: Record<string, never>;
}

export const createTransactionsSlice: SliceCreator<TransactionsSlice> = () => ({
  transactionsView: {},
});

export const wireTransactionsEvents: EventWiring = () => () => {};
