/** The Transactions panel: write transactions, blocked waits, the slot now. */
import type { LogLevel } from '../log.ts';
import type { Originator } from '../transactions.ts';

export interface TransactionEntry {
  readonly txnId: number;
  readonly originator: Originator;
  readonly hint: string | undefined;
  /** When it got the write slot (ms since the epoch). */
  readonly startedAt: number;
  readonly durationMs: number;
  readonly collections: readonly string[];
  readonly documents: number;
  /** The first documents it wrote (at most 5), each as `collection:<_id as JSON>`; `documents` counts them all. */
  readonly sampleIds: readonly string[];
}

/** A writer that had to wait for the write slot, once it got it. */
export interface BlockedWaitEntry {
  readonly originator: Originator;
  readonly hint: string | undefined;
  readonly waitedMs: number;
  readonly blockedBy: Originator;
  readonly blockingTxnId: number;
  /** When the wait ended (ms since the epoch). */
  readonly endedAt: number;
  /** The level of its last "blocked" log line (spec section 8); null when it waited less than 10 s and was never logged. */
  readonly logLevel: LogLevel | null;
}

/** A writer waiting now. */
export interface WaitingWriter {
  readonly originator: Originator;
  readonly hint: string | undefined;
  readonly waitingMs: number;
  /** The level its next "blocked" log line will have. */
  readonly logLevel: LogLevel;
}

export interface WriteSlotState {
  readonly holder: { readonly txnId: number; readonly originator: Originator; readonly hint: string | undefined; readonly heldMs: number } | undefined;
  readonly waiting: readonly WaitingWriter[];
  readonly openReadTransactions: number;
}

export interface TransactionsSnapshot {
  /** The most recent commits, oldest first (at most 1,000). */
  readonly commits: readonly TransactionEntry[];
  /** The most recent blocked waits, oldest first (at most 1,000). */
  readonly waits: readonly BlockedWaitEntry[];
  readonly slot: WriteSlotState;
}

export interface HoldInput {
  /** How long to hold the write slot, 1 ms to 10 minutes. */
  readonly ms: number;
  readonly hint?: string;
}
