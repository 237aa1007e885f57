/** Commits and waits for the Transactions panel's tests. */
import type { BlockedWaitEntry, TransactionEntry } from '../../shared/inspector/transactions.ts';

export function commit(txnId: number, overrides: Partial<TransactionEntry> = {}): TransactionEntry {
  return {
    txnId,
    originator: 'User',
    hint: undefined,
    startedAt: 1_000_000 + txnId * 100,
    durationMs: 5,
    collections: ['cars'],
    documents: 1,
    sampleIds: ['cars:"c1"'],
    ...overrides,
  };
}

export function wait(endedAt: number, overrides: Partial<BlockedWaitEntry> = {}): BlockedWaitEntry {
  return { originator: 'User', hint: undefined, waitedMs: 12_300, blockedBy: 'Replication', blockingTxnId: 45, endedAt, logLevel: 'DEBUG', ...overrides };
}
