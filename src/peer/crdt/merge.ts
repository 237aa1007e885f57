/**
 * Merging two states of one document, field by field (architecture note, "Merge").
 *
 * A state is read as the operations that made it, each with its stamp: the document's creation
 * (`c`, which clears everything older), its deletion (`d`), object assignments (an `f` stamp on
 * a path holding an object), leaf assignments (scalars and arrays, stamped by their nearest
 * stamped ancestor), removals (`r`) and counters (`n`). The merge replays the operations of both
 * states in stamp order: the last writer wins per path, an assignment to a path replaces
 * everything older below it, a deletion removes everything older, and counters add up each
 * writer's highest tallies. An edit made after a deletion (by a peer that had not seen it)
 * brings the document back with the fields written since; nothing is ever dropped, which is
 * what keeps the merge associative. Replaying is deterministic, so the merge is commutative,
 * associative and idempotent. `_id` belongs to the document and is never merged.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { isObject } from '../dql/values.ts';
import { counterValue, pathKey, type CounterState, type DocumentMeta, type Stamp } from './document-meta.ts';

type Path = readonly (string | number)[];

/** A document's value (null for a tombstone) with its merge metadata. */
export interface DocumentState {
  readonly value: JsonObject | null;
  readonly meta: DocumentMeta;
}

type Op =
  | { readonly kind: 'delete'; readonly stamp: Stamp }
  | { readonly kind: 'clear'; readonly path: Path; readonly stamp: Stamp }
  | { readonly kind: 'unset'; readonly path: Path; readonly stamp: Stamp }
  | { readonly kind: 'set'; readonly path: Path; readonly stamp: Stamp; readonly value: JsonValue }
  | { readonly kind: 'counter'; readonly path: Path; readonly stamp: Stamp; readonly counter: CounterState };

const KIND_ORDER = { delete: 0, clear: 1, unset: 2, set: 3, counter: 4 } as const;

/** Total order of stamps: hybrid clock, then writer key. */
export function compareStamps(a: Stamp, b: Stamp): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] === b[1] ? 0 : a[1] < b[1] ? -1 : 1;
}

function laterStamp(a: Stamp | undefined, b: Stamp | undefined): Stamp | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return compareStamps(a, b) >= 0 ? a : b;
}

function parseKey(key: string): Path {
  return JSON.parse(key) as Path;
}

/** The operations a state stands for. */
function operations(state: DocumentState): Op[] {
  const { meta, value } = state;
  const ops: Op[] = [{ kind: 'clear', path: [], stamp: meta.c }];
  if (meta.d !== undefined) ops.push({ kind: 'delete', stamp: meta.d });
  for (const [key, stamp] of Object.entries(meta.r ?? {})) ops.push({ kind: 'unset', path: parseKey(key), stamp });
  const counters = new Set(Object.keys(meta.n ?? {}));
  for (const [key, counter] of Object.entries(meta.n ?? {})) ops.push({ kind: 'counter', path: parseKey(key), stamp: counter.s, counter });
  if (value === null) return ops;
  const stamps = meta.f ?? {};
  // Walk the value: objects stamped on their own are assignments; leaves take the nearest stamp.
  const walk = (node: JsonObject, path: Path, inherited: Stamp): void => {
    for (const [k, v] of Object.entries(node)) {
      const child = [...path, k];
      const key = pathKey(child);
      if (counters.has(key)) continue;
      const stamp = stamps[key] ?? inherited;
      if (isObject(v) && Object.keys(v).length > 0) {
        if (stamps[key] !== undefined) ops.push({ kind: 'clear', path: child, stamp });
        walk(v, child, stamp);
      } else {
        ops.push({ kind: 'set', path: child, stamp, value: v });
      }
    }
  };
  const { _id: _ignored, ...fields } = value;
  walk(fields, [], meta.c);
  return ops;
}

/** The replayed document: its tree, and the stamp of what made each path (objects and leaves). */
interface Replay {
  root: JsonObject;
  /** The latest deletion applied, and the latest write of content (which outlives it when later). */
  deletedAt: Stamp | undefined;
  writtenAt: Stamp | undefined;
  readonly stamps: Map<string, Stamp>;
  readonly removed: Map<string, Stamp>;
  readonly counters: Map<string, CounterState>;
}

function dropBelow(replay: Replay, path: Path): void {
  const prefix = pathKey(path).slice(0, -1);
  for (const map of [replay.stamps, replay.removed, replay.counters]) {
    for (const key of [...map.keys()]) if (key.startsWith(`${prefix},`)) map.delete(key);
  }
}

/** The object that holds `path`'s last step, creating objects on the way. */
function holder(replay: Replay, path: Path): Record<string | number, JsonValue> | undefined {
  let node = replay.root as Record<string | number, JsonValue>;
  for (let i = 0; i < path.length - 1; i++) {
    const seg = path[i] as string | number;
    const next = node[seg];
    if (isObject(next)) {
      node = next;
      continue;
    }
    if (typeof seg === 'number') return undefined; // paths never go inside arrays
    const created: JsonObject = {};
    node[seg] = created;
    const at = pathKey(path.slice(0, i + 1));
    // The object made here replaces what the path held (a scalar, array, counter or removal) as
    // of that one's stamp, not of the write below it: so it wipes exactly what that one wiped,
    // whichever states are merged first. Where the path held nothing, it wipes nothing. What
    // is recorded below the path (removals) came after that and stays.
    const replaced = replay.stamps.get(at) ?? replay.counters.get(at)?.s ?? replay.removed.get(at);
    replay.counters.delete(at);
    replay.removed.delete(at);
    if (replaced === undefined) replay.stamps.delete(at);
    else replay.stamps.set(at, replaced);
    node = created;
  }
  return node;
}

function apply(replay: Replay, op: Op): void {
  if (op.kind === 'delete' || (op.kind === 'clear' && op.path.length === 0)) {
    replay.root = {};
    replay.stamps.clear();
    replay.removed.clear();
    replay.counters.clear();
    if (op.kind === 'delete') replay.deletedAt = op.stamp;
    else replay.writtenAt = op.stamp;
    return;
  }
  // Every edit is a write, a removal too: one made after a deletion its writer had not seen brings
  // the document back, as a SET would. Were removals not counted, a revival by SET followed by an
  // UNSET would be dead or alive depending on whether the SET's state travelled on its own.
  replay.writtenAt = op.stamp;
  const key = pathKey(op.path);
  const last = op.path[op.path.length - 1] as string;
  // Every write below a path, a removal included, says that the path holds an object as of
  // its stamp, so objects on the way are made as for a write. The removal is remembered: an
  // older value from elsewhere must not come back.
  const node = holder(replay, op.path);
  if (node === undefined) return;
  dropBelow(replay, op.path);
  replay.stamps.delete(key);
  replay.removed.delete(key);
  replay.counters.delete(key);
  switch (op.kind) {
    case 'clear':
      node[last] = {};
      replay.stamps.set(key, op.stamp);
      return;
    case 'set':
      node[last] = structuredClone(op.value);
      replay.stamps.set(key, op.stamp);
      return;
    case 'unset':
      delete node[last];
      replay.removed.set(key, op.stamp);
      return;
    case 'counter':
      node[last] = counterValue(op.counter);
      replay.counters.set(key, op.counter);
      return;
  }
}

// Each writer's tallies only grow, so the higher of two copies is the newer.
function mergeCounters(a: CounterState, b: CounterState): CounterState {
  const t: Record<string, readonly [number, number]> = { ...a.t };
  for (const [writer, [inc, dec]] of Object.entries(b.t)) {
    const mine = t[writer];
    t[writer] = mine === undefined ? [inc, dec] : [Math.max(mine[0], inc), Math.max(mine[1], dec)];
  }
  return { s: a.s, t: sortKeys(t) };
}

/** The metadata of a replayed document: only stamps that differ from their parent's are kept. */
function metaOf(replay: Replay, c: Stamp, d: Stamp | undefined): DocumentMeta {
  const f: Record<string, Stamp> = {};
  for (const [key, stamp] of replay.stamps) {
    const path = parseKey(key);
    let parent: Stamp = c;
    for (let i = path.length - 1; i > 0; i--) {
      const found = replay.stamps.get(pathKey(path.slice(0, i)));
      if (found !== undefined) {
        parent = found;
        break;
      }
    }
    if (compareStamps(parent, stamp) !== 0) f[key] = stamp;
  }
  const meta: { c: Stamp; d?: Stamp; f?: Record<string, Stamp>; r?: Record<string, Stamp>; n?: Record<string, CounterState> } = { c };
  if (d !== undefined) meta.d = d;
  if (Object.keys(f).length > 0) meta.f = sortKeys(f);
  if (replay.removed.size > 0) meta.r = sortKeys(Object.fromEntries(replay.removed));
  if (replay.counters.size > 0) meta.n = sortKeys(Object.fromEntries(replay.counters));
  return meta;
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Merges two states of one document. Merging a state with itself, or with one it already
 * contains, gives the same state back (in normal form).
 */
export function mergeDocumentStates(a: DocumentState, b: DocumentState): DocumentState {
  const ops = [...operations(a), ...operations(b)];
  // A counter is known by its path and creation stamp: copies of one counter on both sides are
  // one counter, whose writers' tallies combine. A counter created anew at the same path (a
  // later APPLY over a plain value) is another one, and replaces it like any later write.
  const counterKey = (op: Extract<Op, { kind: 'counter' }>): string => `${pathKey(op.path)}|${op.counter.s[0]}|${op.counter.s[1]}`;
  const counters = new Map<string, CounterState>();
  for (const op of ops) {
    if (op.kind !== 'counter') continue;
    const key = counterKey(op);
    const seen = counters.get(key);
    counters.set(key, seen === undefined ? op.counter : mergeCounters(seen, op.counter));
  }
  ops.sort((x, y) => {
    const s = compareStamps(x.stamp, y.stamp);
    if (s !== 0) return s;
    if (x.kind !== y.kind) return KIND_ORDER[x.kind] - KIND_ORDER[y.kind];
    const px = 'path' in x ? x.path.length : 0;
    const py = 'path' in y ? y.path.length : 0;
    return px - py;
  });
  const replay: Replay = { root: {}, deletedAt: undefined, writtenAt: undefined, stamps: new Map(), removed: new Map(), counters: new Map() };
  for (const op of ops) {
    apply(replay, op.kind === 'counter' ? { ...op, counter: counters.get(counterKey(op)) as CounterState } : op);
  }
  const c = laterStamp(a.meta.c, b.meta.c) as Stamp;
  const d = laterStamp(a.meta.d, b.meta.d);
  // Live unless the latest deletion came after the latest write.
  const live = replay.deletedAt === undefined || (replay.writtenAt !== undefined && compareStamps(replay.writtenAt, replay.deletedAt) > 0);
  const id = (a.value ?? b.value)?._id;
  const value = live && id !== undefined ? { _id: id, ...replay.root } : null;
  return { value, meta: metaOf(replay, c, d) };
}
