/**
 * The DQL statements behind the inspector's buttons. Every action of the UI (open a collection,
 * insert, edit, delete, evict a document, register a subscription) is one of these statements with
 * its named arguments, shown to the user before it runs through `documents:query` (or
 * `subscriptions:register`), so that the UI teaches the DQL it uses. Pure: no I/O, no peer code.
 *
 * Values always travel as named arguments (`:doc`, `:id`, `:status`), never spliced into the text,
 * so nothing needs escaping but names: collections and field paths are written bare when DQL reads
 * them as names and in backticks otherwise (reserved words, contextual keywords, odd characters).
 */
import { RESERVED_WORDS } from '../dql/keywords.ts';
import { jsonEqual, type JsonObject, type JsonValue } from '../json.ts';

/** A statement and the arguments it runs with. */
export interface Statement {
  readonly statement: string;
  readonly args: JsonObject;
}

/**
 * Words DQL never reads as a bare name (`docs/dql.md`), and the contextual keywords that may be
 * read as syntax where the inspector writes names (`FROM collection`, `UPDATE t SET set = …`).
 * Quoting those too costs two backticks and removes every doubt.
 */
export const QUOTED_WORDS: ReadonlySet<string> = new Set([
  ...RESERVED_WORDS,
  // Contextual.
  'COLLECTION',
  'DOCUMENTS',
  'VALUES',
  'SET',
  'UNSET',
  'APPLY',
  'PN_INCREMENT',
  'ON',
  'ASC',
  'DESC',
]);

const BARE_NAME = /^[A-Za-z_$\p{L}][A-Za-z0-9_$\p{L}\p{M}\p{Nd}]*$/u;

/** Whether a name can be written in a statement at all (backticks cannot hold an empty name). */
export function isNameWritable(name: string): boolean {
  return name !== '' && name !== '__proto__' && !LONE_SURROGATE.test(name);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A collection or field name as DQL reads it: bare when it can be, else in backticks (a backtick doubled). */
export function quoteName(name: string): string {
  if (!isNameWritable(name)) throw new RangeError(`the name ${JSON.stringify(name)} cannot be written in DQL`);
  if (BARE_NAME.test(name) && !QUOTED_WORDS.has(name.toUpperCase())) return name;
  return `\`${name.replaceAll('`', '``')}\``;
}

/** One step of a path: a field name, or an array index. */
export type PathSegment = string | number;

/** A path as DQL writes it: `address.city`, `items[0]`, `` `order`.total ``. It starts with a field name. */
export function formatPath(segments: readonly PathSegment[]): string {
  const [first, ...rest] = segments;
  if (typeof first !== 'string') throw new RangeError('a path starts with a field name');
  let text = quoteName(first);
  for (const segment of rest) text += typeof segment === 'number' ? `[${segment}]` : `.${quoteName(segment)}`;
  return text;
}

/**
 * The segments of a path written as DQL (`a.b`, `` `odd key`.x ``, `items[0]`, `m['k']`), as the
 * peer prints merge metadata paths; undefined for text that is not a plain path.
 */
export function parsePath(text: string): PathSegment[] | undefined {
  const segments: PathSegment[] = [];
  let i = 0;
  const name = (): string | undefined => {
    if (text[i] === '`') {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) return undefined;
        if (text[i] === '`') {
          if (text[i + 1] !== '`') break;
          value += '`';
          i += 2;
        } else value += text[i++];
      }
      i++;
      return value;
    }
    const match = /^[A-Za-z_$\p{L}][A-Za-z0-9_$\p{L}\p{M}\p{N}]*/u.exec(text.slice(i));
    if (match === null) return undefined;
    i += match[0].length;
    return match[0];
  };
  const first = name();
  if (first === undefined) return undefined;
  segments.push(first);
  while (i < text.length) {
    if (text[i] === '.') {
      i++;
      const next = name();
      if (next === undefined) return undefined;
      segments.push(next);
    } else if (text[i] === '[') {
      const index = /^\[(\d+)\]/.exec(text.slice(i));
      const quoted = /^\['((?:[^'\\]|''|\\.)*)'\]/.exec(text.slice(i));
      if (index !== null) {
        segments.push(Number(index[1]));
        i += index[0].length;
      } else if (quoted !== null) {
        segments.push((quoted[1] as string).replaceAll("''", "'").replace(/\\(.)/g, '$1'));
        i += quoted[0].length;
      } else return undefined;
    } else return undefined;
  }
  return segments;
}

/** `SELECT * FROM <collection>`: what opening a collection runs. */
export function selectCollection(collection: string): Statement {
  return { statement: `SELECT * FROM ${quoteName(collection)}`, args: {} };
}

/** `INSERT INTO <collection> DOCUMENTS (:doc)`: a new document (no `_id`: the peer makes one). */
export function insertDocument(collection: string, doc: JsonObject): Statement {
  return { statement: `INSERT INTO ${quoteName(collection)} DOCUMENTS (:doc)`, args: { doc } };
}

/** `DELETE FROM <collection> WHERE _id = :id`: writes a tombstone, which replicates. */
export function deleteDocument(collection: string, id: JsonValue): Statement {
  return { statement: `DELETE FROM ${quoteName(collection)} WHERE _id = :id`, args: { id } };
}

/** `EVICT FROM <collection> WHERE _id = :id`: drops this peer's copy only; nothing replicates. */
export function evictDocument(collection: string, id: JsonValue): Statement {
  return { statement: `EVICT FROM ${quoteName(collection)} WHERE _id = :id`, args: { id } };
}

/** One change an edit makes. */
export type FieldChange =
  | { readonly kind: 'set'; readonly path: readonly PathSegment[]; readonly value: JsonValue }
  | { readonly kind: 'unset'; readonly path: readonly PathSegment[] }
  | { readonly kind: 'increment'; readonly path: readonly PathSegment[]; readonly by: number };

export interface DiffOptions {
  /**
   * Paths (DQL text, as merge metadata gives them) that hold counters: a new number there becomes
   * `APPLY path PN_INCREMENT BY <difference>`, so the counter keeps merging with other peers'
   * increments instead of turning back into a plain value.
   */
  readonly counters?: ReadonlySet<string>;
}

/** Raised when an edit cannot be written as an UPDATE (a changed `_id`, an unwritable key). */
export class EditError extends Error {
  override readonly name = 'EditError';
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The field changes that turn `original` into `edited`, as narrow as DQL allows: nested objects
 * are compared key by key (so that an unchanged field keeps its merge stamp and its writer),
 * arrays are set whole (DQL cannot unset one element), counters are incremented.
 *
 * @throws EditError when `_id` changed or a changed key cannot be written as a path.
 */
export function diffDocument(original: JsonObject, edited: JsonObject, options: DiffOptions = {}): FieldChange[] {
  if (!jsonEqual(original['_id'] ?? null, edited['_id'] ?? null)) {
    throw new EditError('_id cannot change: insert a new document and delete this one instead');
  }
  const changes: FieldChange[] = [];
  const counters = new Set<string>();
  for (const text of options.counters ?? []) {
    const segments = parsePath(text);
    if (segments !== undefined) counters.add(JSON.stringify(segments));
  }
  const walk = (before: JsonObject, after: JsonObject, prefix: readonly PathSegment[]): void => {
    const keys = [...Object.keys(before), ...Object.keys(after).filter((key) => !Object.hasOwn(before, key))];
    for (const key of keys) {
      if (prefix.length === 0 && key === '_id') continue;
      const had = Object.hasOwn(before, key);
      const has = Object.hasOwn(after, key);
      const old = before[key];
      const now = after[key];
      if (had && has && jsonEqual(old as JsonValue, now as JsonValue)) continue;
      if (!isNameWritable(key)) {
        if (prefix.length === 0) throw new EditError(`the field ${JSON.stringify(key)} cannot be named in DQL`);
        // The whole enclosing object is set instead.
        throw new UnwritableKey();
      }
      const path = [...prefix, key];
      if (!has) {
        changes.push({ kind: 'unset', path });
      } else if (!had) {
        changes.push({ kind: 'set', path, value: now as JsonValue });
      } else if (isObject(old) && isObject(now)) {
        const mark = changes.length;
        try {
          walk(old, now, path);
        } catch (error) {
          if (!(error instanceof UnwritableKey)) throw error;
          changes.length = mark;
          changes.push({ kind: 'set', path, value: now });
        }
      } else if (
        typeof old === 'number' &&
        typeof now === 'number' &&
        counters.has(JSON.stringify(path)) &&
        Number.isFinite(now - old) &&
        old + (now - old) === now
      ) {
        changes.push({ kind: 'increment', path, by: now - old });
      } else {
        changes.push({ kind: 'set', path, value: now as JsonValue });
      }
    }
  };
  walk(original, edited, []);
  return changes;
}

/** Thrown inside `diffDocument` to set a whole object whose keys cannot all be named. */
class UnwritableKey extends Error {}

/** A parameter name for a path: `address.city` → `address_city`, unique among `taken`. */
export function parameterName(path: readonly PathSegment[], taken: Set<string>): string {
  let base = path
    .map((segment) => String(segment))
    .join('_')
    .replace(/[^A-Za-z0-9_$]+/g, '_')
    .replace(/^_+(?=.)/, '');
  if (base === '' || base === '_' || !/^[A-Za-z_$]/.test(base)) base = `v_${base}`.replace(/_+$/, '') || 'v';
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/**
 * The UPDATE that turns `original` into `edited`, by `_id` (`WHERE _id = :id`), one clause per
 * changed field; undefined when nothing changed.
 *
 * ```
 * UPDATE orders
 *   SET status = :status, address.city = :address_city
 *   UNSET draft
 *   APPLY visits PN_INCREMENT BY :visits
 *   WHERE _id = :id
 * ```
 *
 * @throws EditError when `_id` changed or a top-level key cannot be named.
 */
export function updateDocument(collection: string, original: JsonObject, edited: JsonObject, options: DiffOptions = {}): Statement | undefined {
  const changes = diffDocument(original, edited, options);
  if (changes.length === 0) return undefined;
  const taken = new Set<string>(['id']);
  const args: JsonObject = { id: original['_id'] ?? null };
  const sets: string[] = [];
  const unsets: string[] = [];
  const increments: string[] = [];
  for (const change of changes) {
    const path = formatPath(change.path);
    if (change.kind === 'unset') {
      unsets.push(path);
    } else {
      const name = parameterName(change.path, taken);
      if (change.kind === 'set') {
        args[name] = change.value;
        sets.push(`${path} = :${name}`);
      } else {
        args[name] = change.by;
        increments.push(`${path} PN_INCREMENT BY :${name}`);
      }
    }
  }
  const lines = [`UPDATE ${quoteName(collection)}`];
  if (sets.length > 0) lines.push(`  SET ${sets.join(', ')}`);
  if (unsets.length > 0) lines.push(`  UNSET ${unsets.join(', ')}`);
  if (increments.length > 0) lines.push(`  APPLY ${increments.join(', ')}`);
  lines.push('  WHERE _id = :id');
  return { statement: lines.join('\n'), args };
}

/** What a subscription form holds: a collection and the optional parts of its query. */
export interface SubscriptionDraft {
  readonly collection: string;
  /** A DQL condition, as typed (empty: every document). */
  readonly where?: string;
  /** ORDER BY terms, as typed (`createdAt DESC, _id`). */
  readonly orderBy?: string;
  readonly limit?: number;
  readonly offset?: number;
}

/**
 * The statement `sync.store.registerSubscription` takes for a draft:
 * `SELECT * FROM <collection> [WHERE …] [ORDER BY …] [LIMIT n] [OFFSET n]`. The condition and order
 * are the user's DQL, kept as typed (they may use `:name` arguments).
 */
export function subscriptionStatement(draft: SubscriptionDraft): string {
  const parts = [`SELECT * FROM ${quoteName(draft.collection)}`];
  const where = draft.where?.trim() ?? '';
  const orderBy = draft.orderBy?.trim() ?? '';
  if (where !== '') parts.push(`WHERE ${where}`);
  if (orderBy !== '') parts.push(`ORDER BY ${orderBy}`);
  if (draft.limit !== undefined) parts.push(`LIMIT ${draft.limit}`);
  if (draft.offset !== undefined) parts.push(`OFFSET ${draft.offset}`);
  return parts.join(' ');
}

/** The SDK call a registration makes, as the Subscriptions panel shows it. */
export function registerSubscriptionCall(statement: string, args: JsonObject): string {
  const text = JSON.stringify(statement);
  return Object.keys(args).length === 0 ? `sync.store.registerSubscription(${text})` : `sync.store.registerSubscription(${text}, ${JSON.stringify(args)})`;
}

/** The SDK call a cancellation makes, as the Subscriptions panel shows it. */
export function cancelSubscriptionCall(id: number): string {
  return `subscription.cancel() // subscription #${id}`;
}
