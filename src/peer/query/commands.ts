/**
 * The commands `execute` runs besides statements: `CREATE INDEX`, `DROP INDEX`, `EXPLAIN` and
 * `SELECT … FROM system:indexes`. Indexes are the peer's own: never replicated, observed or
 * subscribed to; they change how fast a query runs, never what it finds (docs/dql.md, "Indexes").
 */
import type { JsonObject } from '../../shared/json.ts';
import type { Command, CreateIndexStatement, ExplainStatement, PathSegment } from '../dql/ast.ts';
import { COMMAND_WORDS, parseCommand } from '../dql/parser.ts';
import { printPath } from '../dql/print.ts';
import { Lexer } from '../dql/lexer.ts';
import { hasLoneSurrogate } from '../dql/values.ts';
import type { Params } from '../dql/evaluate.ts';
import { ParseError, QueryEvaluationError, UnsupportedQueryError } from '../errors.ts';
import type { IndexDefinition, PlanOperation, StoragePlan } from '../storage/index-definition.ts';
import { MemoryStorage } from '../storage/memory-storage.ts';
import type { DocumentQuery, StorageReader, StorageWriter } from '../storage/types.ts';
import { FORBIDDEN_KEY, MAX_JSON_DEPTH } from './args.ts';
import { checkBound, prepareTree, type PreparedStatement } from './prepare.ts';
import { documentQueryOf, runSelect, selectStorageQuery } from './select.ts';

/** The collection that lists the peer's secondary indexes, one document each. */
export const SYSTEM_INDEXES = 'system:indexes';

/** The most keys one index may have. */
export const MAX_INDEX_KEYS = 16;

/** The command a text holds when it starts with CREATE, DROP or EXPLAIN; undefined for any other text (a statement). */
export function commandOf(text: string): Command | undefined {
  if (typeof text !== 'string') return undefined;
  let first: string;
  try {
    first = new Lexer(text).token.keyword;
  } catch {
    return undefined; // the statement path reports the syntax error
  }
  return COMMAND_WORDS.has(first) ? parseCommand(text) : undefined;
}

/** Is this collection one the peer describes (`system:…`), read-only and local? */
export function isSystemCollection(collection: string): boolean {
  return collection.startsWith('system:');
}

/** The definition a `CREATE INDEX` asks for, checked. */
export function indexDefinitionOf(ast: CreateIndexStatement): IndexDefinition {
  if (isSystemCollection(ast.collection))
    throw new UnsupportedQueryError(`${ast.collection} cannot be indexed: the peer describes it`, { collection: ast.collection });
  for (const name of [ast.name, ast.collection])
    if (hasLoneSurrogate(name)) throw new ParseError(`the name ${JSON.stringify(name)} holds a lone surrogate`, ast.pos);
  if (ast.keys.length > MAX_INDEX_KEYS) throw new ParseError(`an index has at most ${MAX_INDEX_KEYS} keys, found ${ast.keys.length}`, ast.pos);
  const seen = new Set<string>();
  for (const key of ast.keys) {
    const at = `at line ${key.pos.line} column ${key.pos.column}`;
    const text = printPath(key.path);
    if (key.path.length === 1 && key.path[0] === '_id') throw new UnsupportedQueryError(`_id is indexed already: it is the documents' key (${at})`);
    if (key.path.includes(FORBIDDEN_KEY) || key.path.some((s) => typeof s === 'string' && hasLoneSurrogate(s))) {
      throw new ParseError(`the path ${text} ${at} cannot name a stored field`, key.pos);
    }
    if (key.path.length > MAX_JSON_DEPTH)
      throw new ParseError(`the path ${at} is ${key.path.length} steps long; documents nest at most ${MAX_JSON_DEPTH} deep`, key.pos);
    if (seen.has(text)) throw new ParseError(`the index names ${text} twice (${at})`, key.pos);
    seen.add(text);
  }
  return { collection: ast.collection, name: ast.name, keys: ast.keys.map((k) => ({ path: k.path, direction: k.direction })) };
}

/** The DQL text of an index definition. */
export function indexStatement(index: IndexDefinition): string {
  return `CREATE INDEX ${printName(index.name)} ON ${printName(index.collection)} (${index.keys.map((k) => `${printPath(k.path)} ${k.direction}`).join(', ')})`;
}

function printName(name: string): string {
  return printPath([name]);
}

/** Creates an index in an open write transaction; tells whether it was made (false: it existed and IF NOT EXISTS was given). */
export function createIndex(writer: StorageWriter, ast: CreateIndexStatement, kind: string): boolean {
  const index = indexDefinitionOf(ast);
  if (writer.createIndex === undefined) throw unsupported(kind);
  const made = writer.createIndex(index);
  if (!made && !ast.ifNotExists) {
    throw new QueryEvaluationError(`index ${ast.name} on ${ast.collection} exists already; use CREATE INDEX IF NOT EXISTS to accept it`, {
      index: ast.name,
      collection: ast.collection,
    });
  }
  return made;
}

/** Drops an index in an open write transaction; tells whether there was one. */
export function dropIndex(writer: StorageWriter, name: string, collection: string, ifExists: boolean, kind: string): boolean {
  if (writer.dropIndex === undefined) throw unsupported(kind);
  const dropped = writer.dropIndex(collection, name);
  if (!dropped && !ifExists) {
    throw new QueryEvaluationError(`there is no index ${name} on ${collection}; use DROP INDEX IF EXISTS to accept that`, { index: name, collection });
  }
  return dropped;
}

function unsupported(kind: string): UnsupportedQueryError {
  return new UnsupportedQueryError(`secondary indexes need the SQLite or PostgreSQL storage; this peer's storage is ${kind}`, { storage: kind });
}

/** `system:indexes` as documents: one per index, by collection then name. */
export function indexDocuments(reader: StorageReader): JsonObject[] {
  return (reader.indexes?.() ?? []).map((index) => ({
    _id: { collection: index.collection, name: index.name },
    collection: index.collection,
    name: index.name,
    keys: index.keys.map((k) => ({ path: printPath(k.path), direction: k.direction })),
    statement: indexStatement(index),
  }));
}

/** Runs a SELECT over `system:indexes`. */
export function selectSystemIndexes(reader: StorageReader, prepared: PreparedStatement, params: Params): JsonObject[] {
  const docs = indexDocuments(reader);
  const memory = new MemoryStorage();
  memory.write((w) => {
    for (const doc of docs) w.put(SYSTEM_INDEXES, { id: doc._id as JsonObject, value: doc, meta: {} as never, txnId: 1 });
  });
  return memory.read((r) => runSelect(r, prepared, params));
}

/**
 * The plan of a statement, as EXPLAIN returns it (docs/dql.md, "EXPLAIN"): one item naming the
 * storage operation, the index it uses or a scan, whether it sorts, the SQL, SQLite's plan lines,
 * and how many documents the statement would return or change now (counted, not run).
 */
export function explain(reader: StorageReader, ast: ExplainStatement, text: string, params: Params, kind: string): JsonObject {
  const prepared = prepareTree(text, ast.statement);
  checkBound(prepared, params);
  const inner = ast.statement;
  const base = { statement: inner.kind.toUpperCase(), collection: inner.collection };
  if (inner.kind === 'insert') {
    return {
      ...base,
      operation: 'insert',
      access: 'id',
      index: null,
      sorted: false,
      sql: null,
      details: ['each document is written by its _id'],
      estimatedRows: null,
    };
  }
  if (inner.kind === 'select' && isSystemCollection(inner.collection)) {
    return { ...base, operation: 'find', access: 'scan', index: null, sorted: false, sql: null, details: ['the peer lists its indexes'], estimatedRows: null };
  }
  let operation: PlanOperation;
  let query: DocumentQuery;
  if (inner.kind === 'select') {
    const { shape, query: q } = selectStorageQuery(prepared, params);
    operation = shape === 'count' ? 'count' : 'find';
    query = q;
  } else if (inner.kind === 'evict') {
    operation = 'evict';
    query = documentQueryOf(inner, params);
  } else {
    operation = 'find';
    query = { collection: inner.collection, where: inner.where, params, orderBy: [], limit: undefined, offset: 0 };
  }
  const plan: StoragePlan = reader.explain?.(query, operation) ?? {
    access: 'scan',
    index: null,
    sorted: query.orderBy.length > 0,
    sql: null,
    details: [`the ${kind} storage filters every document in JavaScript`],
  };
  const matching = reader.count({ ...query, orderBy: [], limit: undefined, offset: 0 });
  const bounded = Math.max(0, Math.min(query.limit ?? Infinity, matching - query.offset));
  return { ...base, operation, ...plan, details: [...plan.details], estimatedRows: operation === 'count' ? 1 : bounded };
}

/** The paths of an index's keys as text, for logs. */
export function keysText(keys: readonly { readonly path: readonly PathSegment[] }[]): string {
  return keys.map((k) => printPath(k.path)).join(', ');
}
