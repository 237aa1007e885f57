/**
 * `documents:query`, `documents:rows`, `documents:metadata`: the DQL console and the document
 * inspector.
 *
 * Choices the contract leaves open:
 * - A statement runs exactly as `sync.store.execute` runs it, as the user (`User` originator);
 *   its errors come back with their own codes (`query/invalid`, `query/evaluation`, …).
 * - A SELECT's result is kept in the session (at most RESULTS_KEPT, within the memory limits of
 *   result-cache.ts; paging one keeps it fresh). A result too large for them keeps only its
 *   first rows: `truncated` is true and `total` counts the rows kept. A mutation keeps nothing
 *   and answers `resultId: ''`, `total: 0`, no rows.
 * - `elapsedMs` is real time (performance.now), whatever clock the peer runs on.
 * - `documents:rows` past the end answers no rows (not an error); `offset` and `limit` are
 *   integers, `limit` 1 to 1,000.
 * - `documents:metadata` reads committed data (what a SELECT sees), tombstones included.
 */
import type { InspectorHandlers } from '../../../shared/inspector/contract.ts';
import type { QueryOutcome } from '../../../shared/inspector/documents.ts';
import type { InspectorContext } from '../context.ts';
import { documentId, notFound, objectInput, optionalArgs, optionalInteger, requiredInteger, requiredString } from './input.ts';
import { documentMetadata } from './merge-metadata.ts';
import type { ResultCache } from './result-cache.ts';

type DocumentsHandlers = Pick<InspectorHandlers, 'documents:query' | 'documents:rows' | 'documents:metadata'>;

export const DEFAULT_PAGE_SIZE = 200;
export const MAX_PAGE_SIZE = 1000;
/** A statement longer than this is refused before it is parsed. */
export const MAX_STATEMENT_CHARS = 100_000;

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
      const kept = results.put(statement, result.items);
      const rows = kept.result.rows;
      return {
        statement,
        resultId: kept.id,
        total: rows.length,
        truncated: kept.result.truncated,
        rows: rows.slice(0, pageSize),
        mutatedDocumentIds: [],
        commitId: null,
        elapsedMs,
      };
    },
    'documents:rows': async (input) => {
      const o = objectInput(input, ['resultId', 'offset', 'limit']);
      const resultId = requiredString(o, 'resultId', { maxLength: 200 });
      const offset = requiredInteger(o, 'offset', 0, Number.MAX_SAFE_INTEGER);
      const limit = requiredInteger(o, 'limit', 1, MAX_PAGE_SIZE);
      const { rows } = results.get(resultId);
      return { resultId, offset, total: rows.length, rows: rows.slice(offset, offset + limit) };
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
