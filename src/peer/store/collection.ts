/**
 * The older, per-collection API of section 4.6 of the spec: `collection(name).find(query)`,
 * `findByID(id).update(fn)`, `upsert(doc)`. Each call runs through the same statements and
 * transactions as DQL.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import type { Expr, OrderTerm, PathSegment, SelectStatement } from '../dql/ast.ts';
import { parseCondition } from '../dql/parser.ts';
import { hasLoneSurrogate, isObject, typeName, valuesEqual } from '../dql/values.ts';
import { DocumentEditor } from '../crdt/document-editor.ts';
import { InvalidArgumentsError, ParseError, QueryEvaluationError } from '../errors.ts';
import { FORBIDDEN_KEY, findJsonFault, toParams } from '../query/args.ts';
import { checkBound, prepareTree, type PreparedStatement } from '../query/prepare.ts';
import type { Params } from '../dql/evaluate.ts';
import type { ObserverEvent } from '../observers/observer-registry.ts';
import type { SyncSubscription } from '../subscriptions/subscription-set.ts';
import { runSelect } from '../query/select.ts';
import type { ConflictPolicy } from '../dql/ast.ts';
import type { WriteContext } from '../query/mutations.ts';
import type { QueryResult } from '../query/query-result.ts';
import type { SignalNextHandler, StoreObserver } from '../observers/observer-registry.ts';
import type { StorageReader } from '../storage/types.ts';
import { assertWritable } from './internal-collections.ts';

/** What the collection API needs of the store (the Store is one). */
export interface CollectionHost {
  readNow<T>(fn: (reader: StorageReader) => T): T;
  observePrepared(prepared: PreparedStatement, params: Params, handler: SignalNextHandler, signal: boolean): StoreObserver;
  subscribePrepared(prepared: PreparedStatement, params: Params): SyncSubscription;
  writeAsUser<T>(hint: string | undefined, fn: (write: WriteContext) => T): Promise<{ result: T; txnId: number }>;
  execute(statement: string, args?: Record<string, unknown>): Promise<QueryResult>;
  insert(collection: string, docs: readonly JsonObject[], policy: ConflictPolicy): Promise<{ ids: JsonValue[]; txnId: number }>;
}

const NO_POS = { line: 1, column: 1, offset: 0 } as const;

/** A name as a DQL quoted identifier: backticks, with a backtick inside doubled. */
function quoteName(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

function pathOf(path: string | readonly PathSegment[]): PathSegment[] {
  return typeof path === 'string' ? path.split('.') : [...path];
}

/** A query on one collection, run by `exec()`. */
export class PendingCursorOperation {
  readonly #store: CollectionHost;
  readonly #collection: string;
  readonly #query: string | undefined;
  readonly #where: Expr | undefined;
  readonly #args: Record<string, unknown> | undefined;
  #orderBy: OrderTerm[] = [];
  #limit: number | undefined;
  #offset: number | undefined;

  constructor(store: CollectionHost, collection: string, query: string | undefined, args: Record<string, unknown> | undefined) {
    this.#store = store;
    this.#collection = collection;
    this.#query = query;
    this.#where = query === undefined ? undefined : parseCondition(query);
    this.#args = args;
  }

  /** Orders by a field (dotted path), ascending unless told otherwise. */
  sort(path: string, direction: 'ascending' | 'descending' = 'ascending'): this {
    this.#orderBy.push({ expr: { kind: 'path', segments: pathOf(path), pos: NO_POS }, direction: direction === 'descending' ? 'DESC' : 'ASC' });
    return this;
  }

  limit(n: number): this {
    this.#limit = n;
    return this;
  }

  offset(n: number): this {
    this.#offset = n;
    return this;
  }

  /** The matching documents. */
  async exec(): Promise<JsonObject[]> {
    const { prepared, params } = this.#prepare();
    return this.#store.readNow((reader) => runSelect(reader, prepared, params));
  }

  /**
   * A live query on the local store: `handler` gets the matching documents now and after every
   * commit that changes them. `cancel()` (or `stop()`) the returned object when done.
   */
  observeLocal(handler: (documents: JsonObject[], event: ObserverEvent) => void): LiveQuery {
    const { prepared, params } = this.#prepare();
    const observer = this.#store.observePrepared(prepared, params, (event) => handler(event.items, event), false);
    return {
      cancel: () => observer.cancel(),
      stop: () => observer.cancel(),
      get isCancelled() {
        return observer.isCancelled;
      },
    };
  }

  /**
   * A sync subscription to the matching documents (the older form of `registerSubscription`).
   * `cancel()` (or `stop()`) it when they are no longer needed.
   */
  subscribe(): SyncSubscription {
    const { prepared, params } = this.#prepare();
    return this.#store.subscribePrepared(prepared, params);
  }

  #prepare(): { prepared: PreparedStatement; params: Params } {
    const literal = (n: number | undefined): Expr | undefined => (n === undefined ? undefined : { kind: 'literal', value: n, pos: NO_POS });
    const ast: SelectStatement = {
      kind: 'select',
      distinct: false,
      projections: [{ kind: 'star', pos: NO_POS }],
      collection: this.#collection,
      alias: undefined,
      where: this.#where,
      groupBy: [],
      orderBy: this.#orderBy,
      limit: literal(this.#limit),
      offset: literal(this.#offset),
      pos: NO_POS,
    };
    const prepared = prepareTree(`find(${this.#query ?? ''})`, ast);
    const params = toParams(this.#args);
    checkBound(prepared, params);
    return { prepared, params };
  }
}

/** A live query of the older API: stop it with `cancel()` or `stop()`. */
export interface LiveQuery {
  readonly isCancelled: boolean;
  cancel(): void;
  stop(): void;
}

/** Helpers offered to an `update` callback besides the document itself. */
export interface UpdateHelpers {
  /** Adds `by` to the counter at `path` (a counter from 0 where there is none). */
  increment(path: string | readonly PathSegment[], by: number): void;
}

/** Operations on the document with one `_id`. */
export class PendingIdSpecificOperation {
  readonly #store: CollectionHost;
  readonly #collection: string;
  readonly #id: JsonValue;

  constructor(store: CollectionHost, collection: string, id: JsonValue) {
    this.#store = store;
    this.#collection = collection;
    this.#id = id;
  }

  /** The document, or undefined when there is none (or it was deleted). */
  async exec(): Promise<JsonObject | undefined> {
    const doc = this.#store.readNow((r) => r.get(this.#collection, this.#id));
    return doc?.value ?? undefined;
  }

  /**
   * Changes the document inside one write transaction: `fn` edits a copy, and every field it
   * changed, added or removed is written (counters through `helpers.increment`). Nothing is
   * written when there is no such document.
   */
  async update(fn: (doc: JsonObject, helpers: UpdateHelpers) => void): Promise<QueryResult> {
    assertWritable(this.#collection);
    const { result, txnId } = await this.#store.writeAsUser(undefined, (ctx) => {
      const stored = ctx.writer.get(this.#collection, this.#id);
      if (stored?.value === null || stored === undefined) return [];
      const before = stored.value;
      const draft = JSON.parse(JSON.stringify(before)) as JsonObject;
      const increments: [PathSegment[], number][] = [];
      const returned: unknown = fn(draft, {
        increment: (path, by) => {
          if (typeof by !== 'number' || !Number.isFinite(by)) throw new QueryEvaluationError(`increment takes a finite number, found ${String(by)}`);
          const segments = pathOf(path);
          if (segments.length === 0 || segments[0] === '_id' || segments.includes(FORBIDDEN_KEY) || segments.some((seg) => seg === '')) {
            throw new QueryEvaluationError(`increment takes the path of a field other than _id, not ${JSON.stringify(path)}`);
          }
          increments.push([segments, by]);
        },
      });
      // The whole update happens inside the write transaction: a callback that awaits would
      // edit the document after it was written.
      if (typeof (returned as { then?: unknown } | undefined)?.then === 'function') {
        (returned as Promise<unknown>).catch(() => {});
        throw new QueryEvaluationError('the update callback must change the document synchronously; it returned a promise, so nothing was written');
      }
      toParams({ document: draft });
      if (!valuesEqual(draft._id ?? null, before._id ?? null)) throw new QueryEvaluationError('_id cannot be changed');
      const editor = new DocumentEditor(JSON.parse(JSON.stringify(before)) as JsonObject, stored.meta, ctx.stamp);
      diffInto(editor, [], before, draft);
      for (const [path, by] of increments) editor.increment(path, by);
      ctx.writer.put(this.#collection, { id: this.#id, value: editor.value, meta: editor.meta(), txnId: ctx.txnId });
      return [this.#id];
    });
    return { items: [], mutatedDocumentIds: result, commitId: txnId };
  }

  /** Deletes the document (a replicated tombstone). */
  async remove(): Promise<QueryResult> {
    return this.#store.execute(`DELETE FROM ${quoteName(this.#collection)} WHERE _id = :id`, { id: this.#id });
  }

  /** Removes this peer's copy only. */
  async evict(): Promise<QueryResult> {
    return this.#store.execute(`EVICT FROM ${quoteName(this.#collection)} WHERE _id = :id`, { id: this.#id });
  }
}

// Writes what changed between two versions of a document, field by field.
function diffInto(editor: DocumentEditor, path: PathSegment[], before: JsonObject, after: JsonObject): void {
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) editor.unset([...path, key]);
  for (const [key, value] of Object.entries(after)) {
    const old = before[key];
    if (isObject(old) && isObject(value)) diffInto(editor, [...path, key], old, value);
    else if (old === undefined || !valuesEqual(old, value)) editor.set([...path, key], value);
  }
}

/** A named collection of documents. */
export class Collection {
  readonly name: string;
  readonly #store: CollectionHost;

  constructor(store: CollectionHost, name: string) {
    if (hasLoneSurrogate(name)) throw new ParseError('the collection name holds a lone surrogate, which is not Unicode text');
    this.#store = store;
    this.name = name;
  }

  /** Documents matching a condition (`'isDeleted == false'`); an empty condition is a ParseError. */
  find(query: string, args?: Record<string, unknown>): PendingCursorOperation {
    if (typeof query !== 'string') throw new ParseError(`find takes a query string, not ${query === null ? 'null' : typeof query}`);
    return new PendingCursorOperation(this.#store, this.name, query, args);
  }

  /** Every document of the collection. */
  findAll(): PendingCursorOperation {
    return new PendingCursorOperation(this.#store, this.name, undefined, undefined);
  }

  findByID(id: JsonValue): PendingIdSpecificOperation {
    const fault =
      typeof id === 'string' || typeof id === 'number' || isObject(id)
        ? findJsonFault(id)
        : { path: '', problem: `a ${id === null ? 'null' : Array.isArray(id) ? 'array' : typeof id}` };
    if (fault !== undefined) throw new InvalidArgumentsError(`findByID takes a string, number or object _id; this one${fault.path} is ${fault.problem}`);
    return new PendingIdSpecificOperation(this.#store, this.name, id);
  }

  /** Writes a document: fields it names are set, others are kept (`ON ID CONFLICT DO UPDATE`). Returns its `_id`. */
  async upsert(document: JsonObject): Promise<JsonValue> {
    if (!isObject(toParams({ document }).document)) {
      // As for INSERT: a document that is not an object is an invalid statement (dql.md, Errors).
      throw new ParseError(`upsert takes an object as its document, found ${typeName(document as JsonValue)}`);
    }
    const { ids } = await this.#store.insert(this.name, [document], 'DO UPDATE');
    return ids[0] ?? (document._id as JsonValue);
  }
}
