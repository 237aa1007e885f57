/**
 * Runs one statement of the HTTP API (store/execute) within its time budget, so that no statement
 * holds the Big Peer's event loop for long (docs/http-api.md, "Time budget of a statement"):
 *
 * - A SELECT runs in a query thread when the store is SQLite on disk (`QueryThreads`): the event
 *   loop only waits for its answer, the items as JSON text. Elsewhere (in memory, PostgreSQL, or
 *   where threads cannot start) it runs on the event loop, the budget checked between rows.
 * - An UPDATE, DELETE or EVICT with a condition, on SQLite on disk, finds its documents in a
 *   query thread first; the event loop then writes them in the write slot, checking only the
 *   documents that changed since (`ExecuteOptions.targets`). Other mutations run on the event
 *   loop, the budget checked between rows and documents.
 * - Once the budget is spent the answer is due at once: it rejects with `BudgetExceeded`, the
 *   budget is marked spent, and whatever still runs stops at its next check; a mutation is
 *   rolled back (its last check comes right before its commit), or never starts if it was still
 *   waiting for the write slot.
 */
import { Budget, QueryThreadsUnavailable, isSystemCollection, type PreparedStatement, type QueryThreads, type Store, type Timers } from '../peer/host.ts';
import type { JsonObject, JsonValue } from '../shared/json.ts';

export interface StatementRunnerDeps {
  readonly store: Store;
  /** The query threads of a SQLite store on disk; undefined: everything runs on the event loop. */
  readonly queries?: QueryThreads;
  readonly timers: Timers;
}

export interface StatementOutcome {
  readonly commitId: number | null;
  /** The items as JSON text (an array). */
  readonly itemsJson: string;
  readonly mutatedDocumentIds: JsonValue[];
}

/** Settles as `running` does, or rejects with the budget's error (spending it) once it is spent. */
export function withinBudget<T>(running: Promise<T>, budget: Budget, timers: Timers): Promise<T> {
  running.catch(() => {}); // when the deadline wins, how the statement ended is nobody's business
  return new Promise((resolve, reject) => {
    const timer = timers.setTimeout(() => {
      budget.expire();
      reject(budget.error());
    }, budget.remainingMs);
    running.then(
      (value) => {
        timers.clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        timers.clearTimeout(timer);
        reject(error);
      },
    );
  });
}

async function onThreads<T>(deps: StatementRunnerDeps, fn: (queries: QueryThreads) => Promise<T>): Promise<T | undefined> {
  if (deps.queries === undefined) return undefined;
  try {
    return await fn(deps.queries);
  } catch (error) {
    if (error instanceof QueryThreadsUnavailable) return undefined; // logged by the pool once
    throw error;
  }
}

async function run(
  deps: StatementRunnerDeps,
  statement: string,
  args: JsonObject | undefined,
  ast: PreparedStatement['ast'],
  budget: Budget,
): Promise<StatementOutcome> {
  const { store } = deps;
  if (ast.kind === 'select') {
    // A query thread reads documents; `system:` collections are the store's own to answer.
    const answer = isSystemCollection(ast.collection) ? undefined : await onThreads(deps, (q) => q.select(statement, args, budget, store.lastTxnId));
    if (answer !== undefined) return { commitId: null, itemsJson: answer.itemsJson, mutatedDocumentIds: [] };
    const result = await store.execute(statement, args, { budget });
    return { commitId: null, itemsJson: JSON.stringify(result.items), mutatedDocumentIds: [] };
  }
  const searched = (ast.kind === 'update' || ast.kind === 'delete' || ast.kind === 'evict') && ast.where !== undefined;
  const targets = searched ? await onThreads(deps, (q) => q.findTargets(statement, args, budget, store.lastTxnId)) : undefined;
  const result = await store.execute(statement, args, targets === undefined ? { budget } : { budget, targets });
  return { commitId: result.commitId, itemsJson: '[]', mutatedDocumentIds: result.mutatedDocumentIds };
}

/**
 * Runs the statement (parsed as `ast`) within `budget`.
 * @throws BudgetExceeded (`query/timeout`) once the budget is spent; the statement's own errors.
 */
export function runStatement(
  deps: StatementRunnerDeps,
  statement: string,
  args: JsonObject | undefined,
  ast: PreparedStatement['ast'],
  budget: Budget,
): Promise<StatementOutcome> {
  return withinBudget(run(deps, statement, args, ast, budget), budget, deps.timers);
}
