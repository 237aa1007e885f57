/** The Documents panel: the DQL console, paged results, and per-field merge metadata. */
import type { JsonObject, JsonValue } from '../json.ts';

export interface QueryInput {
  readonly statement: string;
  /** Named arguments (`:name`), as a JSON object. */
  readonly args?: JsonObject;
  /** How many rows to return at once (default 200, at most 1,000); the rest come from `documents:rows`. */
  readonly pageSize?: number;
}

/**
 * What a statement did. A SELECT's rows stay on the peer and are fetched a page at a time with
 * `documents:rows` under `resultId`, so that a result of 100,000 documents never crosses the
 * bridge at once.
 */
export interface QueryOutcome {
  readonly statement: string;
  /** The key of this result for `documents:rows`; results expire (the peer keeps a few per client, within a memory budget). */
  readonly resultId: string;
  /** Rows in the result that the peer keeps, and that `documents:rows` pages through. */
  readonly total: number;
  /**
   * True when the statement returned more rows than the peer keeps for one session (about
   * 64 MiB of JSON, 250,000 rows by default): only one window of `total` rows is kept (the
   * first ones for a new run; `window` says which and why); `documents:window` moves to the
   * next or previous window.
   */
  readonly truncated: boolean;
  /** For a SELECT: which rows of the statement's result are kept, and the limit that cut them. */
  readonly window?: ResultWindow;
  /** The first rows (up to `pageSize`). */
  readonly rows: readonly JsonObject[];
  /** For a mutation: the `_id`s it changed. */
  readonly mutatedDocumentIds: readonly JsonValue[];
  /** For a mutation: its `txn_id`; null for a SELECT. */
  readonly commitId: number | null;
  readonly elapsedMs: number;
}

/** The rows of a SELECT's result that the peer keeps (all of them unless `truncated`). */
export interface ResultWindow {
  /** The position of the first kept row in the statement's whole result (0 for a new run). */
  readonly start: number;
  /** Rows the statement returned when this window was taken (the kept ones are `start` … `start + total - 1`). */
  readonly statementRows: number;
  /** What one session keeps at most: bytes (rows counted as their JSON text, about) and rows. */
  readonly limit: { readonly bytes: number; readonly rows: number };
  /** The limit that stopped the window short, if one did. */
  readonly cutBy: 'bytes' | 'rows' | null;
  /**
   * How the window was placed: a fresh run (`start`), after or before a row of the previous
   * window found again by its `_id` (`row`), or by position (`offset`: no row of the previous
   * window could be found again, so writes in between shift it).
   */
  readonly placedBy: 'start' | 'row' | 'offset';
}

/**
 * `documents:window`: the statement of a kept result run again, for the window after or before
 * it, or for the same window again (`current`, a refresh: from its first row still returned).
 */
export interface WindowInput {
  readonly resultId: string;
  readonly direction: 'next' | 'previous' | 'current';
  /** As for `documents:query`. */
  readonly pageSize?: number;
}

export interface RowsInput {
  readonly resultId: string;
  readonly offset: number;
  /** At most 1,000. */
  readonly limit: number;
}

export interface RowsPage {
  readonly resultId: string;
  readonly offset: number;
  readonly total: number;
  readonly rows: readonly JsonObject[];
}

export interface DocumentRef {
  readonly collection: string;
  readonly id: JsonValue;
}

/** Who wrote a value, and when (from the field's hybrid-clock stamp). */
export interface WriteStamp {
  /** The writer's peer key. */
  readonly writer: string;
  /** `local`, `big-peer`, `remote` (a connected small peer) or `unknown` (not connected now). */
  readonly writerRole: 'local' | 'big-peer' | 'remote' | 'unknown';
  /** The hybrid-clock stamp as stored (16 hex characters). */
  readonly hlc: string;
  /** The stamp's wall-clock part, ISO 8601. */
  readonly time: string;
}

export interface FieldMerge {
  /** The field's path, as DQL writes it: `a.b`. An array is one leaf (`items`), never `items[0]`. */
  readonly path: string;
  /** The winning (current) value; for a counter, its sum. */
  readonly value: JsonValue;
  readonly kind: 'register' | 'counter' | 'removed';
  /** Who wrote the winning value (for a counter: who last replaced the field with a counter). */
  readonly stamp: WriteStamp;
  /** For a counter: each writer's net tally. */
  readonly tallies?: Readonly<Record<string, number>>;
}

export interface DocumentMetadata {
  readonly collection: string;
  readonly id: JsonValue;
  /** The current value; null for a tombstone. */
  readonly value: JsonObject | null;
  /** The `txn_id` of the last commit that changed it on this peer. */
  readonly txnId: number;
  readonly created: WriteStamp;
  /** Set for a tombstone. */
  readonly deleted: WriteStamp | undefined;
  /** Every leaf field, removed ones included, in path order. */
  readonly fields: readonly FieldMerge[];
}
