/**
 * `documents:query`, `documents:rows`, `documents:metadata`: the DQL console and the document
 * inspector.
 *
 * Choices the contract leaves open:
 * - A statement runs exactly as `sync.store.execute` runs it, as the user (`User` originator);
 *   its errors come back with their own codes (`query/invalid`, `query/evaluation`, …).
 * - A SELECT's result is kept in the session (at most RESULTS_KEPT, within the memory limits of
 *   result-cache.ts; paging one keeps it fresh). A result too large for them keeps only its
 *   first rows: `truncated` is true, `total` counts the rows kept, and `window` says how many
 *   the statement returned and which limit cut them. A mutation keeps nothing and answers
 *   `resultId: ''`, `total: 0`, no rows, no window.
 * - `documents:window` runs a kept result's statement again (with its arguments) and keeps the
 *   window after or before the kept one (or the same one again, `current`, for a refresh) as a
 *   new result; where it starts with writes in between is result-window.ts's rule. `previous` from the first window, or once nothing is before it,
 *   answers the first window again.
 * - `elapsedMs` is real time (performance.now), whatever clock the peer runs on.
 * - `documents:rows` past the end answers no rows (not an error); `offset` and `limit` are
 *   integers, `limit` 1 to 1,000.
 * - `documents:metadata` reads committed data (what a SELECT sees), tombstones included.
 */
import type { InspectorHandlers } from '../../../shared/inspector/contract.ts';
import type { QueryOutcome } from '../../../shared/inspector/documents.ts';
import type { JsonObject } from '../../../shared/json.ts';
import type { InspectorContext } from '../context.ts';
import { badRequest, documentId, notFound, objectInput, optionalArgs, optionalInteger, requiredInteger, requiredString } from './input.ts';
import { documentMetadata } from './merge-metadata.ts';
import type { CachedResult, ResultCache } from './result-cache.ts';
import { FROM_START, placeAfter, placeAgain, placeBefore } from './result-window.ts';

type DocumentsHandlers = Pick<InspectorHandlers, 'documents:query' | 'documents:rows' | 'documents:window' | 'documents:metadata'>;

export const DEFAULT_PAGE_SIZE = 200;
export const MAX_PAGE_SIZE = 1000;
/** A statement longer than this is refused before it is parsed. */
export const MAX_STATEMENT_CHARS = 100_000;

/** A kept result as `documents:query` and `documents:window` answer it. */
function selectOutcome(kept: { id: string; result: CachedResult }, results: ResultCache, pageSize: number, elapsedMs: number): QueryOutcome {
  const { result } = kept;
  return {
    statement: result.statement,
    resultId: kept.id,
    total: result.rows.length,
    truncated: result.truncated,
    window: {
      start: result.start,
      statementRows: result.statementRows,
      limit: { bytes: results.limits.bytesPerSession, rows: results.limits.rowsPerSession },
      cutBy: result.cutBy,
      placedBy: result.placedBy,
    },
    rows: result.rows.slice(0, pageSize),
    mutatedDocumentIds: [],
    commitId: null,
    elapsedMs,
  };
}

export function documentsHandlers(ctx: InspectorContext, results: ResultCache): DocumentsHandlers {
  return {
    'documents:query': async (input): Promise<QueryOutcome> => {
      const o = objectInput(input, ['statement', 'args', 'pageSize']);
      const statement = requiredString(o, 'statement', { maxLength: MAX_STATEMENT_CHARS });
      const args = optionalArgs(o, 'args');
      const pageSize = optionalInteger(o, 'pageSize', 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE;
      const started = performance.now();
      const result = await ctx.sync.store.execute(statement, args);
      const elapsedMs = performance.now() - started;
      if (result.commitId !== null) {
        return {
          statement,
          resultId: '',
          total: 0,
          truncated: false,
          rows: [],
          mutatedDocumentIds: result.mutatedDocumentIds,
          commitId: result.commitId,
          elapsedMs,
        };
      }
      return selectOutcome(results.put(statement, result.items, args ?? {}), results, pageSize, elapsedMs);
    },
    'documents:rows': async (input) => {
      const o = objectInput(input, ['resultId', 'offset', 'limit']);
      const resultId = requiredString(o, 'resultId', { maxLength: 200 });
      const offset = requiredInteger(o, 'offset', 0, Number.MAX_SAFE_INTEGER);
      const limit = requiredInteger(o, 'limit', 1, MAX_PAGE_SIZE);
      const { rows } = results.get(resultId);
      return { resultId, offset, total: rows.length, rows: rows.slice(offset, offset + limit) };
    },
    'documents:window': async (input): Promise<QueryOutcome> => {
      const o = objectInput(input, ['resultId', 'direction', 'pageSize']);
      const resultId = requiredString(o, 'resultId', { maxLength: 200 });
      const direction = requiredString(o, 'direction');
      if (direction !== 'next' && direction !== 'previous' && direction !== 'current')
        throw badRequest(`direction: expected "next", "previous" or "current", got ${JSON.stringify(direction.slice(0, 40))}`);
      const pageSize = optionalInteger(o, 'pageSize', 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE;
      const current = results.get(resultId);
      const started = performance.now();
      const result = await ctx.sync.store.execute(current.statement, current.args);
      const elapsedMs = performance.now() - started;
      const rows: readonly JsonObject[] = result.items;
      let request = direction === 'next' ? placeAfter(current, rows) : direction === 'previous' ? placeBefore(current, rows) : placeAgain(current, rows);
      if (direction === 'current' && current.start === 0) request = FROM_START;
      if (request.direction === 'backward' && request.from === 0) request = FROM_START;
      return selectOutcome(results.put(current.statement, rows, current.args, request), results, pageSize, elapsedMs);
    },
    'documents:metadata': async (input) => {
      const o = objectInput(input, ['collection', 'id']);
      const collection = requiredString(o, 'collection', { nonEmpty: true, maxLength: 1000 });
      const id = documentId(o, 'id');
      const sync = ctx.sync;
      const stored = sync.store.readNow((reader) => reader.get(collection, id));
      if (stored === undefined) throw notFound(`id: collection ${collection} holds no document ${JSON.stringify(id).slice(0, 200)} on this peer`);
      return documentMetadata(collection, stored, { local: sync.peerKey, sessions: sync.sessions });
    },
  };
}
