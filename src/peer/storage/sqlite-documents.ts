/**
 * Documents as the SQLite storage reads them from rows: each remembers the row it came from, so
 * that writing it back (`put` with `replaces`) goes straight to that row, and consecutive rows
 * with the same merge metadata (a statement's documents share one stamp) parse it once.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import type { DocumentMeta } from '../crdt/document-meta.ts';
import type { StoredDocument } from './types.ts';

/** The columns a document is read from. */
export interface DocumentRow {
  readonly rowid: number;
  readonly body: string;
  readonly meta: string;
  readonly deleted: number;
  readonly txn_id: number;
}

/** A stored document read from SQLite, with its rowid kept private: it compares and serialises as a plain `StoredDocument`. */
export class SqliteDocument implements StoredDocument {
  readonly id: JsonValue;
  readonly value: JsonObject | null;
  readonly meta: DocumentMeta;
  readonly txnId: number;
  readonly #rowid: number;

  constructor(id: JsonValue, value: JsonObject | null, meta: DocumentMeta, txnId: number, rowid: number) {
    this.id = id;
    this.value = value;
    this.meta = meta;
    this.txnId = txnId;
    this.#rowid = rowid;
  }

  /** The rowid the document was read from, when SQLite read it; the row may have changed since. */
  static rowidOf(doc: StoredDocument): number | undefined {
    return #rowid in doc ? (doc as SqliteDocument).#rowid : undefined;
  }
}

/**
 * Turns rows into documents. Merge metadata is shared, read-only, between documents whose
 * `meta` text is the same as the row before: the documents one statement wrote sit together and
 * carry one stamp, and parsing it is as costly as parsing the body.
 */
export class DocumentDecoder {
  #lastJson = '';
  #lastMeta: DocumentMeta | undefined;

  /** The document of a row. */
  document(row: DocumentRow): SqliteDocument {
    const body = JSON.parse(row.body) as JsonObject;
    return new SqliteDocument(body._id as JsonValue, row.deleted === 1 ? null : body, this.#meta(row.meta), row.txn_id, row.rowid);
  }

  #meta(json: string): DocumentMeta {
    if (json !== this.#lastJson || this.#lastMeta === undefined) {
      this.#lastMeta = JSON.parse(json) as DocumentMeta;
      this.#lastJson = json;
    }
    return this.#lastMeta;
  }
}
