/**
 * `POST /api/v4/store/write`: a list of update, upsert and remove commands (the older query
 * syntax) run as ONE transaction: all of them commit, or none. Statuses: 200; 400 malformed
 * body (a top-level field other than `args` and `commands` included; `__proto__` as a name in
 * `args`), query or command, or a command that failed while running (then nothing is written);
 * 401 bad credential; 403 no write permission on a collection named; 413 the request would touch
 * more than MAX_DOCUMENTS_PER_REQUEST documents (nothing is written); 408 `query/timeout` the
 * request ran past its time budget (`statementTimeoutMs`, its wait for the write slot included;
 * nothing is written); 500 (nothing is written).
 * Between commands the handler yields to the event loop, so a long request does not freeze the
 * server; the transaction stays open across those pauses. Its statements check the budget
 * between rows and documents, and once more right before the commit (store.transaction's
 * `budget`), so a request answered 408 never commits.
 */
import { BIG_PEER_PATHS, type WriteResponse, type WriteResult } from '../../shared/big-peer-api.ts';
import type { JsonObject } from '../../shared/json.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import { Budget, SyncError, type Logger, type Store, type Timers } from '../../peer/host.ts';
import type { Authenticator } from '../credentials.ts';
import { HttpError, refuseUnknownFields } from '../http-error.ts';
import type { Reply, RequestContext, Route } from '../http-server.ts';
import { allows } from '../permission-rules.ts';
import { withinBudget } from '../statement-runner.ts';
import { checkCommands, DocumentBudget, runCommand, yieldToEventLoop } from '../write-commands.ts';
import { statusOfCode } from './execute.ts';
import { errorMessage } from '../../shared/error-message.ts';

const REQUEST_FIELDS = ['args', 'commands'] as const;
/** The one name refused in `args` (as for a statement's named arguments). */
const FORBIDDEN_ARG = '__proto__';

export interface WriteDeps {
  readonly store: Store;
  readonly apiKeys: Authenticator;
  readonly logger: Logger;
  readonly timers: Timers;
  /** The time budget of one request's transaction (`statementTimeoutMs`); 408 `query/timeout` past it. */
  readonly statementTimeoutMs: number;
  /** The request deadline (408 `http/timeout`): the budget never reaches past it. */
  readonly requestTimeoutMs: number;
}

/** A margin kept between the budget and the request deadline, so that the budget's 408 comes first. */
const DEADLINE_MARGIN_MS = 100;

/** A failure of one command, carried out of the transaction so that it rolls back. */
class CommandFailed extends Error {
  readonly index: number;
  readonly error: unknown;
  constructor(index: number, error: unknown) {
    super(errorMessage(error));
    this.index = index;
    this.error = error;
  }
}

async function write(ctx: RequestContext, deps: WriteDeps): Promise<Reply> {
  const arrived = performance.now();
  const principal = await deps.apiKeys.authenticate(ctx.req.headers.authorization);
  const body = await ctx.json();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'http/bad-request', 'the body must be a JSON object {"args": {…}, "commands": […]}');
  }
  refuseUnknownFields(body, REQUEST_FIELDS);
  const { args = {}, commands } = body as Record<string, unknown>;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new HttpError(400, 'query/arguments-invalid', '"args" must be a JSON object');
  // As for store/execute's named arguments: JSON.parse made it an own key; it is refused, not looked up.
  if (Object.hasOwn(args, FORBIDDEN_ARG)) {
    throw new HttpError(
      400,
      'query/arguments-invalid',
      `$args.${FORBIDDEN_ARG} has a name that is refused: JavaScript objects cannot hold "${FORBIDDEN_ARG}" as plain data; use another name`,
    );
  }
  const checked = checkCommands(commands, args as JsonObject);
  for (const command of checked) {
    if (!allows(principal.permissions, 'write', command.collection)) {
      throw new HttpError(403, 'http/forbidden', `the API key ${principal.keyId} may not write collection ${command.collection}`);
    }
  }
  let results: WriteResult[];
  // From here the transaction runs: its budget starts (the wait for the write slot included).
  const leftBeforeDeadline = deps.requestTimeoutMs - (performance.now() - arrived) - DEADLINE_MARGIN_MS;
  const budget = new Budget(Math.max(1, Math.min(deps.statementTimeoutMs, leftBeforeDeadline)), 'the request');
  try {
    const running = deps.store.transaction(
      async (tx) => {
        const done: WriteResult[] = [];
        const budget = new DocumentBudget();
        for (const [i, command] of checked.entries()) {
          // The transaction stays open across these pauses; other requests are answered meanwhile.
          if (i > 0) await yieldToEventLoop();
          try {
            done.push(await runCommand(tx, command, budget));
          } catch (error) {
            throw new CommandFailed(i, error);
          }
        }
        return done;
      },
      { hint: 'store/write', budget },
    );
    results = await withinBudget(running, budget, deps.timers);
  } catch (error) {
    const failed = error instanceof CommandFailed ? error : undefined;
    const cause = failed?.error ?? error;
    const where = failed === undefined ? '' : `commands[${failed.index}] (${checked[failed.index]?.method} ${checked[failed.index]?.collection}): `;
    const message = `${where}${errorMessage(cause)}; nothing was written`;
    if (cause instanceof HttpError) throw new HttpError(cause.status, cause.code, message, cause.headers);
    if (cause instanceof SyncError) {
      const status = statusOfCode(cause.code);
      if (status === 408) {
        const collections = [...new Set(checked.map((c) => c.collection))].join(',');
        deps.logger.warn(LOG_EVENTS.bigPeerStatementTimedOut, { query_type: 'store/write', collection: collections, budget_ms: budget.limitMs });
      }
      if (status === 500) deps.logger.error(LOG_EVENTS.bigPeerRequestFailed, { method: ctx.method, path: ctx.path, status, error: message });
      throw new HttpError(status, cause.code, message);
    }
    deps.logger.error(LOG_EVENTS.bigPeerRequestFailed, { method: ctx.method, path: ctx.path, status: 500, error: message });
    throw new HttpError(500, 'internal/unexpected', message);
  }
  const response: WriteResponse = { results };
  return { status: 200, json: response };
}

export function writeRoute(deps: WriteDeps): Route {
  return { paths: [BIG_PEER_PATHS.write], methods: { POST: (ctx) => write(ctx, deps) } };
}
