/**
 * `store.transaction(fn, { hint, isReadOnly })`: several statements in one atomic transaction.
 * A write transaction holds the store's write slot from its first moment to its end; it commits
 * when `fn` returns and rolls back when `fn` throws (the error is rethrown) or returns
 * `'rollback'`. A read-only transaction reads one snapshot and never waits for the slot.
 */
import type { JsonValue } from '../../shared/json.ts';
import type { Budget } from '../budget.ts';
import { UnsupportedQueryError } from '../errors.ts';
import type { StorageReader } from '../storage/types.ts';
import { runMutation, type WriteContext } from '../query/mutations.ts';
import { prepareWithArgs } from '../query/prepare.ts';
import { runSelect } from '../query/select.ts';
import type { QueryResult } from '../query/query-result.ts';

export const ROLLBACK = 'rollback' as const;

export interface TransactionOptions {
  /** A name for the transaction in logs and the inspector's timeline. */
  readonly hint?: string;
  /** Reads only: a snapshot, no write slot; a mutating statement is refused. */
  readonly isReadOnly?: boolean;
  /**
   * The time the whole transaction may take, its wait for the write slot included: checked
   * between the rows and documents of its statements and once more right before it commits.
   * Spent, the statement running throws `query/timeout` (`BudgetExceeded`) and the transaction
   * rolls back.
   */
  readonly budget?: Budget;
}

/** What a transaction's function receives. */
export interface Transaction {
  readonly isReadOnly: boolean;
  readonly hint: string | undefined;
  /** Runs a statement inside this transaction; a SELECT sees the transaction's own writes. */
  execute(statement: string, args?: Record<string, unknown>): Promise<QueryResult>;
}

/** @internal The transaction handle given to `fn`; it refuses use once the transaction is over. */
export class TransactionHandle implements Transaction {
  readonly isReadOnly: boolean;
  readonly hint: string | undefined;
  readonly #reader: StorageReader;
  readonly #write: WriteContext | undefined;
  readonly #assertWritable: (collection: string) => void;
  readonly #assertOpen: () => void;
  readonly #budget: Budget | undefined;
  #finished = false;

  constructor(options: {
    hint: string | undefined;
    reader: StorageReader;
    write: WriteContext | undefined;
    assertWritable: (collection: string) => void;
    assertOpen: () => void;
    budget?: Budget;
  }) {
    this.hint = options.hint;
    this.isReadOnly = options.write === undefined;
    this.#reader = options.reader;
    this.#write = options.write;
    this.#assertWritable = options.assertWritable;
    this.#assertOpen = options.assertOpen;
    this.#budget = options.budget;
  }

  async execute(statement: string, args?: Record<string, unknown>): Promise<QueryResult> {
    if (this.#finished) throw new UnsupportedQueryError('this transaction is over: its statements can no longer run');
    this.#assertOpen();
    this.#budget?.check();
    const { prepared, params } = prepareWithArgs(statement, args);
    if (prepared.ast.kind === 'select')
      return { items: runSelect(this.#reader, prepared, params, undefined, this.#budget), mutatedDocumentIds: [], commitId: null };
    if (this.#write === undefined) {
      throw new UnsupportedQueryError(`a read-only transaction cannot run ${prepared.ast.kind.toUpperCase()}; open it without isReadOnly to write`);
    }
    this.#assertWritable(prepared.ast.collection);
    // Each statement is atomic on its own too: one that fails leaves nothing, even when the
    // caller catches its error and goes on to commit the transaction.
    const savepoint = this.#write.writer.savepoint();
    let mutated: JsonValue[];
    try {
      mutated = runMutation(this.#budget === undefined ? this.#write : { ...this.#write, budget: this.#budget }, prepared, params);
      savepoint.release();
    } catch (error) {
      savepoint.rollback();
      throw error;
    }
    return { items: [], mutatedDocumentIds: mutated, commitId: this.#write.txnId };
  }

  finish(): void {
    this.#finished = true;
  }
}
