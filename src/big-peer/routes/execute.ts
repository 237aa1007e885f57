/**
 * `POST /api/v4/store/execute` (and `/store/execute`): one DQL statement with its arguments.
 * Every answer, success or error, is an ExecuteResponse. Statuses: 200; 400 for a body that is
 * not `{statement, args?}` (a field it does not take included), a malformed statement or
 * arguments, and a statement that failed while running; 401 bad credential;
 * 403 no read (SELECT) or write (mutation) permission on the collection; 404 when the
 * transaction named by `X-SYNC-TXN-ID` was not committed in time; 408 `query/timeout` when the
 * statement ran past its budget (statement-runner.ts; a mutation is then rolled back), or
 * `http/timeout` at the request deadline; 500; 503 store busy.
 */
import { BIG_PEER_PATHS, type ExecuteRequest, type ExecuteResponse } from '../../shared/big-peer-api.ts';
import type { ErrorCode } from '../../shared/error-codes.ts';
import type { JsonObject } from '../../shared/json.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import { Budget, prepareStatement, SyncError, type Logger, type QueryThreads, type Store, type Timers } from '../../peer/host.ts';
import type { Authenticator } from '../credentials.ts';
import { HttpError, refuseUnknownFields } from '../http-error.ts';
import type { Reply, RequestContext, Route } from '../http-server.ts';
import { allows } from '../permission-rules.ts';
import { runStatement, type StatementOutcome } from '../statement-runner.ts';

export const TXN_ID_HEADER = 'x-sync-txn-id';

type QueryType = ExecuteResponse['queryType'];

export interface ExecuteDeps {
  readonly store: Store;
  readonly apiKeys: Authenticator;
  readonly timers: Timers;
  readonly logger: Logger;
  readonly txnWaitTimeoutMs: number;
  /** The time budget of a statement (`statementTimeoutMs`); 408 `query/timeout` past it. */
  readonly statementTimeoutMs: number;
  /** The request deadline (408 `http/timeout`): a statement's budget never reaches past it. */
  readonly requestTimeoutMs: number;
  /** Query threads over a SQLite store on disk; undefined: statements run on the event loop. */
  readonly queries?: QueryThreads;
  /** Aborted when the Big Peer closes: a wait for a transaction ends at once (503 store/closed). */
  readonly closing?: AbortSignal;
}

export function executeFailure(status: number, queryType: QueryType, code: string, description: string, headers?: Readonly<Record<string, string>>): Reply {
  const body: ExecuteResponse = {
    transactionId: null,
    queryType,
    items: [],
    mutatedDocumentIds: [],
    error: { description, code },
    warnings: [],
    totalWarningsCount: 0,
  };
  return { status, json: body, ...(headers === undefined ? {} : { headers }) };
}

/** The HTTP status of an error of the store. */
export function statusOfCode(code: ErrorCode): number {
  if (code === 'query/timeout') return 408;
  if (code.startsWith('query/')) return 400;
  if (code === 'store/busy' || code === 'store/closed' || code === 'store/unavailable') return 503;
  return 500;
}

const REQUEST_FIELDS = ['statement', 'args'] as const;

function readRequest(body: unknown): ExecuteRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'http/bad-request', 'the body must be a JSON object {"statement": "…", "args": {…}}');
  }
  refuseUnknownFields(body, REQUEST_FIELDS);
  const { statement, args } = body as Record<string, unknown>;
  if (typeof statement !== 'string') throw new HttpError(400, 'query/invalid', '"statement" must be a string of DQL');
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    throw new HttpError(400, 'query/arguments-invalid', '"args" must be a JSON object of named arguments');
  }
  return args === undefined ? { statement } : { statement, args: args as JsonObject };
}

function readTxnId(value: string | string[] | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || !/^\d{1,15}$/.test(text.trim()))
    throw new HttpError(400, 'http/bad-request', 'X-SYNC-TXN-ID must be a transaction id: a non-negative integer');
  return Number(text.trim());
}

/**
 * Resolves true once the store has committed `txnId`, false if it has not within `timeoutMs`.
 * A commit another Big Peer node made counts as soon as this node knows of it: it looks at once
 * (`store.catchUp()`), then hears of it by notification or by polling.
 * @throws HttpError 503 store/closed when `closing` is aborted first.
 */
export async function waitForTxn(store: Store, txnId: number, timeoutMs: number, timers: Timers, closing?: AbortSignal): Promise<boolean> {
  if (store.lastTxnId >= txnId) return true;
  if (closing?.aborted !== true) await store.catchUp();
  return waitForCommit(store, txnId, timeoutMs, timers, closing);
}

function waitForCommit(store: Store, txnId: number, timeoutMs: number, timers: Timers, closing?: AbortSignal): Promise<boolean> {
  if (store.lastTxnId >= txnId) return Promise.resolve(true);
  const closedError = (): HttpError => new HttpError(503, 'store/closed', `the Big Peer is shutting down; transaction ${txnId} will not be waited for`);
  if (closing?.aborted === true) return Promise.reject(closedError());
  return new Promise((resolve, reject) => {
    const onClose = (): void => {
      off();
      offExternal();
      timers.clearTimeout(timer);
      reject(closedError());
    };
    closing?.addEventListener('abort', onClose, { once: true });
    const done = (): void => {
      off();
      offExternal();
      closing?.removeEventListener('abort', onClose);
      timers.clearTimeout(timer);
      resolve(store.lastTxnId >= txnId);
    };
    const off = store.onCommit(() => {
      if (store.lastTxnId >= txnId) done();
    });
    const offExternal = store.onExternalCommit(() => {
      if (store.lastTxnId >= txnId) done();
    });
    const timer = timers.setTimeout(done, timeoutMs);
  });
}

/**
 * A 200 answer. Its items are JSON text already (a query thread's answer is never parsed on the
 * event loop), so the body is put together as text, in the order of ExecuteResponse.
 */
function success(queryType: QueryType, outcome: StatementOutcome): Reply {
  const text =
    `{"transactionId":${JSON.stringify(outcome.commitId)},"queryType":${JSON.stringify(queryType)},"items":${outcome.itemsJson},` +
    `"mutatedDocumentIds":${JSON.stringify(outcome.mutatedDocumentIds)},"error":{},"warnings":[],"totalWarningsCount":0}`;
  return { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' }, text };
}

/** A margin kept between a statement's budget and the request deadline, so that the statement's 408 comes first. */
const DEADLINE_MARGIN_MS = 100;

async function execute(ctx: RequestContext, deps: ExecuteDeps): Promise<Reply> {
  const arrived = performance.now();
  const principal = await deps.apiKeys.authenticate(ctx.req.headers.authorization);
  const request = readRequest(await ctx.json());
  const waitFor = readTxnId(ctx.req.headers[TXN_ID_HEADER]);
  let queryType: QueryType = 'unknown';
  let collection: string | undefined;
  let budget: Budget | undefined;
  try {
    // Through the store's statement cache: `execute` below finds it prepared.
    const { ast } = prepareStatement(request.statement);
    collection = ast.collection;
    queryType = ast.kind === 'select' ? 'select' : 'mutation';
    const access = queryType === 'select' ? 'read' : 'write';
    if (!allows(principal.permissions, access, ast.collection)) {
      return executeFailure(403, queryType, 'http/forbidden', `the API key ${principal.keyId} may not ${access} collection ${ast.collection}`);
    }
    if (waitFor !== undefined && !(await waitForTxn(deps.store, waitFor, deps.txnWaitTimeoutMs, deps.timers, deps.closing))) {
      return executeFailure(
        404,
        queryType,
        'http/not-found',
        `transaction ${waitFor} was not committed within ${deps.txnWaitTimeoutMs} ms (last txn_id ${deps.store.lastTxnId})`,
      );
    }
    // From here the statement runs: its budget starts (a wait for a query thread or the write slot included).
    const leftBeforeDeadline = deps.requestTimeoutMs - (performance.now() - arrived) - DEADLINE_MARGIN_MS;
    budget = new Budget(Math.max(1, Math.min(deps.statementTimeoutMs, leftBeforeDeadline)));
    const outcome = await runStatement(deps, request.statement, request.args, ast, budget);
    return success(queryType, outcome);
  } catch (error) {
    if (error instanceof SyncError) {
      const status = statusOfCode(error.code);
      if (status === 408) {
        deps.logger.warn(LOG_EVENTS.bigPeerStatementTimedOut, {
          query_type: queryType,
          collection: collection ?? '',
          budget_ms: budget?.limitMs ?? deps.statementTimeoutMs,
        });
      }
      if (status === 500) deps.logger.error(LOG_EVENTS.bigPeerRequestFailed, { method: ctx.method, path: ctx.path, status, error: error.message });
      return executeFailure(status, queryType, error.code, error.message);
    }
    throw error;
  }
}

export function executeRoute(deps: ExecuteDeps): Route {
  return {
    paths: [BIG_PEER_PATHS.execute, BIG_PEER_PATHS.executeShort],
    methods: { POST: (ctx) => execute(ctx, deps) },
    errorReply: (error) => executeFailure(error.status, 'unknown', error.code, error.message, error.headers),
  };
}
