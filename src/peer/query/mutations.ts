/**
 * INSERT, UPDATE, DELETE and EVICT inside one write transaction. Every document written gets
 * the transaction's stamp (one hybrid-clock time and this peer's key) in its merge metadata.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import type { ConflictPolicy, DeleteStatement, EvictStatement, InsertStatement, UpdateStatement } from '../dql/ast.ts';
import { evaluate, type Params } from '../dql/evaluate.ts';
import { sortKey } from '../dql/sort-key.ts';
import { MISSING, isObject, typeName, valuesEqual, type Value } from '../dql/values.ts';
import { DocumentEditor } from '../crdt/document-editor.ts';
import { FieldSetter } from '../crdt/field-setter.ts';
import type { Stamp } from '../crdt/document-meta.ts';
import { ParseError, QueryEvaluationError } from '../errors.ts';
import type { DocumentQuery, StorageWriter, StoredDocument } from '../storage/types.ts';
import type { IdGenerator } from './ids.ts';
import type { PreparedStatement } from './prepare.ts';
import { MAX_JSON_DEPTH, findJsonFault } from './args.ts';
import { documentQueryOf } from './select.ts';
import type { Budget } from '../budget.ts';
import { changedSince, idsQuery, selectedNow, type MutationTargets } from './targets.ts';

export interface WriteContext {
  readonly writer: StorageWriter;
  readonly txnId: number;
  readonly stamp: Stamp;
  readonly newId: IdGenerator;
  /** Told of each EVICT before it runs (the store checks it against its subscriptions). */
  readonly beforeEvict?: (query: DocumentQuery) => void;
  /** The time the statement may take: checked between documents; spent, it throws and the transaction rolls back. */
  readonly budget?: Budget;
  /** The documents an UPDATE, DELETE or EVICT selects, found beforehand in a snapshot (targets.ts). */
  readonly targets?: MutationTargets;
}

/** Runs a prepared mutation; returns the `_id`s of the documents it changed. */
export function runMutation(ctx: WriteContext, prepared: PreparedStatement, params: Params): JsonValue[] {
  ctx.budget?.check(); // spent while it waited for the write slot: it does not start
  const ast = prepared.ast;
  switch (ast.kind) {
    case 'insert':
      return insertDocuments(ctx, ast.collection, documentsOf(ast, params), ast.onConflict);
    case 'update':
      return runUpdate(ctx, ast, params);
    case 'delete':
      return runDelete(ctx, ast, params);
    case 'evict':
      return runEvict(ctx, ast, params);
    case 'select':
      throw new Error('a SELECT is not a mutation');
  }
}

function documentsOf(ast: InsertStatement, params: Params): JsonObject[] {
  const docs: JsonObject[] = [];
  for (const expr of ast.documents) {
    const value = evaluate(expr, { doc: {}, params });
    const items: readonly Value[] = expr.kind === 'param' && Array.isArray(value) ? value : [value];
    for (const item of items) {
      // Arguments were checked on the way in; a document written as a literal is checked here.
      const fault = expr.kind === 'param' ? undefined : findJsonFault(item);
      if (fault !== undefined)
        throw new ParseError(`the INSERT document at line ${expr.pos.line} column ${expr.pos.column}${fault.path} is ${fault.problem}`, expr.pos);
      if (!isObject(item)) {
        throw new ParseError(`INSERT takes objects as documents, found ${typeName(item)} at line ${expr.pos.line} column ${expr.pos.column}`, expr.pos);
      }
      docs.push(item);
    }
  }
  return docs;
}

/** The `_id` of a document to insert: given (string, number or object) or generated. */
function withId(doc: JsonObject, ctx: WriteContext, index: number): JsonObject {
  if (!Object.hasOwn(doc, '_id')) return { _id: ctx.newId(), ...doc };
  const id = doc._id;
  if (typeof id === 'string' || typeof id === 'number' || isObject(id)) return doc;
  throw new ParseError(`document ${index + 1} of the INSERT has an _id of type ${typeName(id as JsonValue)}; an _id is a string, a number or an object`);
}

/** Inserts documents under a conflict policy; shared by INSERT and `upsert`. */
export function insertDocuments(ctx: WriteContext, collection: string, docs: readonly JsonObject[], policy: ConflictPolicy): JsonValue[] {
  // String and number ids are their own keys (no encoding, no allocation); object ids go by
  // their sort key, in a set of their own so that no key can pass for a string id.
  const seenIds = new Set<string | number>();
  const seenObjectIds = new Set<string>();
  const firstTime = (id: JsonValue): boolean => {
    if (typeof id === 'string' || typeof id === 'number') return seenIds.size !== seenIds.add(id).size;
    const key = sortKey(id).toString('latin1');
    return seenObjectIds.size !== seenObjectIds.add(key).size;
  };
  const mutated: JsonValue[] = [];
  const created = { c: ctx.stamp };
  // Every document is checked before any is written; then they are written where their _id is
  // free, all in one call (one round trip on PostgreSQL); the others follow the policy, in order.
  const checked = docs.map((input, index) => {
    ctx.budget?.check();
    const doc = withId(input, ctx, index);
    const id = doc._id as JsonValue;
    if (!firstTime(id)) throw new ParseError(`the INSERT holds _id ${JSON.stringify(id)} more than once`);
    return doc;
  });
  const inserted = ctx.writer.insertManyIfAbsent(
    collection,
    checked.map((doc) => ({ id: doc._id as JsonValue, value: doc, meta: created, txnId: ctx.txnId })),
  );
  checked.forEach((doc, index) => {
    ctx.budget?.check();
    const id = doc._id as JsonValue;
    if (inserted[index] === true) {
      mutated.push(id);
      return;
    }
    const existing = ctx.writer.get(collection, id);
    if (existing === undefined) throw new Error('a document vanished inside its write transaction');
    if (existing.value === null) {
      // A deleted document: the insert starts a fresh one, after the tombstone.
      const meta = existing.meta.d === undefined ? { c: ctx.stamp } : { c: ctx.stamp, d: existing.meta.d };
      ctx.writer.put(collection, { id, value: doc, meta, txnId: ctx.txnId });
      mutated.push(id);
      return;
    }
    if (policy === 'FAIL') {
      throw new QueryEvaluationError(`a document with _id ${JSON.stringify(id)} already exists in ${collection} (ON ID CONFLICT FAIL)`, {
        collection,
        id,
      });
    }
    if (policy === 'DO NOTHING') return;
    const editor = new DocumentEditor(existing.value, existing.meta, ctx.stamp);
    let changed = false;
    for (const [field, value] of Object.entries(doc)) {
      if (field === '_id') continue;
      if (policy === 'DO MERGE') {
        changed = mergeInto(editor, [field], existing.value[field], value) || changed;
      } else if (policy === 'DO UPDATE' || !valuesEqual(Object.hasOwn(existing.value, field) ? (existing.value[field] as JsonValue) : MISSING, value)) {
        editor.set([field], value);
        changed = true;
      }
    }
    if (policy === 'DO UPDATE_LOCAL_DIFF' && !changed) return;
    ctx.writer.put(collection, { id, value: editor.value, meta: editor.meta(), txnId: ctx.txnId });
    mutated.push(id);
  });
  return mutated;
}

// DO MERGE: objects merge key by key at every depth; other values are set as given.
function mergeInto(editor: DocumentEditor, path: (string | number)[], before: JsonValue | undefined, after: JsonValue): boolean {
  if (isObject(before) && isObject(after)) {
    let changed = false;
    for (const [k, v] of Object.entries(after)) changed = mergeInto(editor, [...path, k], Object.hasOwn(before, k) ? before[k] : undefined, v) || changed;
    return changed;
  }
  editor.set(path, after);
  return true;
}

/** The live documents an UPDATE or DELETE selects, in `_id` order. */
function selected(ctx: WriteContext, ast: UpdateStatement | DeleteStatement, params: Params): StoredDocument[] {
  if (ctx.targets !== undefined) return selectedNow(ctx.writer, ast.collection, ast.where, params, ctx.targets, ctx.budget);
  return ctx.writer.findDocuments({ collection: ast.collection, where: ast.where, params, orderBy: [], limit: undefined, offset: 0, budget: ctx.budget });
}

function runUpdate(ctx: WriteContext, ast: UpdateStatement, params: Params): JsonValue[] {
  const docs = selected(ctx, ast, params);
  // Only SETs of top-level fields: the metadata after depends on the metadata before alone.
  const setter =
    ast.unset.length === 0 && ast.increments.length === 0
      ? FieldSetter.of(
          ast.set.map((s) => s.path),
          ctx.stamp,
        )
      : undefined;
  for (const doc of docs) {
    ctx.budget?.check();
    const value = doc.value as JsonObject;
    const env = { doc: value, params };
    // Every right-hand side sees the document as it was before this statement.
    const sets = ast.set.map((s) => evaluate(s.value, env));
    if (setter !== undefined && sets.every((v) => v !== MISSING && v !== undefined)) {
      ast.set.forEach((s, i) => checkSetValue(s.path, sets[i] as JsonValue));
      const meta = setter.apply(value, doc.meta, sets as JsonValue[]);
      ctx.writer.put(ast.collection, { id: doc.id, value, meta, txnId: ctx.txnId }, doc);
      continue;
    }
    const increments = ast.increments.map((inc) => {
      const by = evaluate(inc.by, env);
      if (typeof by !== 'number') {
        throw new QueryEvaluationError(`PN_INCREMENT BY takes a number, found ${typeName(by)} at line ${inc.pos.line} column ${inc.pos.column}`);
      }
      return by;
    });
    const editor = new DocumentEditor(value, doc.meta, ctx.stamp);
    ast.set.forEach((s, i) => {
      const v = sets[i];
      if (v === MISSING || v === undefined) return editor.unset(s.path);
      checkSetValue(s.path, v);
      editor.set(s.path, v);
    });
    for (const u of ast.unset) editor.unset(u.path);
    ast.increments.forEach((inc, i) => editor.increment(inc.path, increments[i] as number));
    ctx.writer.put(ast.collection, { id: doc.id, value: editor.value, meta: editor.meta(), txnId: ctx.txnId }, doc);
  }
  return docs.map((d) => d.id);
}

/** A value set below a path must not make the document nest deeper than documents may. */
function checkSetValue(path: readonly (string | number)[], v: JsonValue): void {
  const fault = findJsonFault(v, MAX_JSON_DEPTH - path.length);
  if (fault !== undefined) throw new QueryEvaluationError(`cannot SET ${path.join('.')}: the value${fault.path} is ${fault.problem}`);
}

function runDelete(ctx: WriteContext, ast: DeleteStatement, params: Params): JsonValue[] {
  const docs = selected(ctx, ast, params);
  for (const doc of docs) ctx.writer.put(ast.collection, { id: doc.id, value: null, meta: { c: doc.meta.c, d: ctx.stamp }, txnId: ctx.txnId }, doc);
  return docs.map((d) => d.id);
}

function runEvict(ctx: WriteContext, ast: EvictStatement, params: Params): JsonValue[] {
  let query: DocumentQuery = { ...documentQueryOf(ast, params), budget: ctx.budget };
  const { targets } = ctx;
  if (targets !== undefined) {
    const bounded = query.orderBy.length > 0 || query.limit !== undefined || query.offset > 0;
    // A window (ORDER BY, LIMIT, OFFSET) may move with any write: the targets hold only if none came since.
    if (!bounded)
      query = idsQuery(
        ast.collection,
        selectedNow(ctx.writer, ast.collection, ast.where, params, targets, ctx.budget).map((d) => d.id),
        ctx.budget,
      );
    else if (!changedSince(ctx.writer, ast.collection, targets)) query = idsQuery(ast.collection, targets.ids, ctx.budget);
  }
  ctx.beforeEvict?.(query);
  return ctx.writer.evict(query);
}
