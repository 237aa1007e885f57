/**
 * The transaction timeline: the last commits and blocked waits of the store, collected from the
 * moment the inspector is created (rings of TIMELINE_CAPACITY each), and pushed as events.
 */
import type { BlockedWaitEntry, TransactionEntry } from '../../../shared/inspector/transactions.ts';
import { RingBuffer } from '../../log/ring-buffer.ts';
import type { CommittedTransaction } from '../../store/store.ts';
import type { BlockedWait } from '../../store/write-slot.ts';
import type { InspectorContext } from '../context.ts';

export const TIMELINE_CAPACITY = 1000;

/** How many of a commit's documents its entry names. */
export const SAMPLE_IDS = 5;

export function transactionEntry(txn: CommittedTransaction): TransactionEntry {
  const written = new Set(txn.changes.map((c) => `${c.collection}:${JSON.stringify(c.id)}`));
  const documents = written.size;
  const sampleIds: string[] = [];
  for (const id of written) {
    if (sampleIds.length === SAMPLE_IDS) break;
    sampleIds.push(id);
  }
  return {
    txnId: txn.txnId,
    originator: txn.originator,
    hint: txn.hint,
    startedAt: txn.startedAt,
    durationMs: txn.durationMs,
    collections: txn.collections,
    documents,
    sampleIds,
  };
}

export function blockedWaitEntry(wait: BlockedWait, endedAt: number): BlockedWaitEntry {
  return {
    originator: wait.originator,
    hint: wait.hint,
    waitedMs: wait.waitedMs,
    blockedBy: wait.blockedBy,
    blockingTxnId: wait.blockingTxnId,
    endedAt,
    logLevel: wait.lastLogLevel,
  };
}

export class Timeline {
  readonly #commits = new RingBuffer<TransactionEntry>(TIMELINE_CAPACITY);
  readonly #waits = new RingBuffer<BlockedWaitEntry>(TIMELINE_CAPACITY);
  readonly #off: (() => void)[];

  /** Starts collecting; every commit is also pushed as `transactions:committed` and `store:changed`, every wait as `transactions:waited`. */
  constructor(ctx: InspectorContext) {
    const store = ctx.sync.store;
    this.#off = [
      store.onCommit((txn) => {
        const entry = transactionEntry(txn);
        this.#commits.push(entry);
        ctx.emit('transactions:committed', entry);
        ctx.emit('store:changed', { txnId: txn.txnId, collections: txn.collections });
      }),
      store.onBlockedWait((wait) => {
        const entry = blockedWaitEntry(wait, ctx.now());
        this.#waits.push(entry);
        ctx.emit('transactions:waited', entry);
      }),
    ];
  }

  /** Oldest first. */
  commits(): TransactionEntry[] {
    return this.#commits.toArray();
  }

  /** Oldest first. */
  waits(): BlockedWaitEntry[] {
    return this.#waits.toArray();
  }

  close(): void {
    for (const off of this.#off.splice(0)) off();
  }
}
