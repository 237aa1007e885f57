/**
 * Applies local edits to a document's value and its merge metadata together, so the stored
 * value is always the materialised result and no query ever rebuilds it from metadata.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { QueryEvaluationError } from '../errors.ts';
import { isObject } from '../dql/values.ts';
import { counterValue, isAtOrBelow, pathKey, type CounterState, type DocumentMeta, type Stamp } from './document-meta.ts';

type Path = readonly (string | number)[];
type Container = JsonObject | JsonValue[];

function showPath(path: Path): string {
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

export class DocumentEditor {
  /** The edited value; the editor owns it (pass a copy you may lose). */
  readonly value: JsonObject;
  readonly #meta: DocumentMeta;
  readonly #stamp: Stamp;
  #f: Record<string, Stamp> | undefined;
  #r: Record<string, Stamp> | undefined;
  #n: Record<string, CounterState> | undefined;
  /** Keys of paths with more than one step: the only ones that can lie below another path. */
  readonly #nested = new Set<string>();

  constructor(value: JsonObject, meta: DocumentMeta, stamp: Stamp) {
    this.value = value;
    this.#meta = meta;
    this.#stamp = stamp;
    this.#f = meta.f === undefined ? undefined : { ...meta.f };
    this.#r = meta.r === undefined ? undefined : { ...meta.r };
    this.#n = meta.n === undefined ? undefined : { ...meta.n };
    for (const map of [this.#f, this.#r, this.#n]) for (const k of Object.keys(map ?? {})) if (k.includes(',')) this.#nested.add(k);
  }

  /**
   * `SET path = value`: creates missing objects on the way; replaces a scalar in the way by an
   * object. The value is copied, so the document never shares objects with the caller.
   */
  set(path: Path, value: JsonValue): void {
    const { container, register } = this.#walk(path, true);
    const last = path[path.length - 1] as string | number;
    (container as Record<string | number, JsonValue>)[last] = typeof value === 'object' && value !== null ? structuredClone(value) : value;
    this.#stampRegister(path.slice(0, register));
  }

  /** `UNSET path`: removes the value; a path that does not exist is left as it is. */
  unset(path: Path): void {
    if (path.some((s) => typeof s === 'number')) {
      throw new QueryEvaluationError(`cannot UNSET ${showPath(path)}: elements of an array cannot be removed one by one; SET the whole array`);
    }
    let container: JsonValue = this.value;
    for (const seg of path.slice(0, -1)) {
      if (!isObject(container) || !isObject(container[seg as string])) return;
      container = container[seg as string] as JsonValue;
    }
    const last = path[path.length - 1] as string;
    if (!isObject(container) || !Object.hasOwn(container, last)) return;
    delete container[last];
    const key = pathKey(path);
    this.#drop(key);
    (this.#r ??= {})[key] = this.#stamp;
    this.#remember(key);
  }

  /** `APPLY path PN_INCREMENT BY by`: a counter from 0 where the path held none, summed per writer. */
  increment(path: Path, by: number): void {
    if (path.some((s) => typeof s === 'number')) {
      throw new QueryEvaluationError(`cannot APPLY PN_INCREMENT to ${showPath(path)}: counters cannot live inside arrays`);
    }
    const { container, register } = this.#walk(path, true);
    if (register < path.length) this.#stampRegister(path.slice(0, register));
    const key = pathKey(path);
    const writer = this.#stamp[1];
    const existing = this.#n?.[key];
    let counter: CounterState;
    if (existing === undefined) {
      this.#drop(key);
      counter = { s: this.#stamp, t: { [writer]: by >= 0 ? [by, 0] : [0, -by] } };
    } else {
      const [inc, dec] = existing.t[writer] ?? [0, 0];
      counter = { s: existing.s, t: { ...existing.t, [writer]: by >= 0 ? [inc + by, dec] : [inc, dec - by] } };
    }
    const tally = counter.t[writer] as readonly [number, number];
    if (!Number.isFinite(tally[0]) || !Number.isFinite(tally[1]) || !Number.isFinite(counterValue(counter))) {
      throw new QueryEvaluationError(`cannot APPLY PN_INCREMENT to ${showPath(path)}: the counter would pass the largest number`);
    }
    (this.#n ??= {})[key] = counter;
    this.#remember(key);
    (container as JsonObject)[path[path.length - 1] as string] = counterValue(counter);
  }

  /** The metadata after the edits. */
  meta(): DocumentMeta {
    const out: { c: Stamp; d?: Stamp; f?: Record<string, Stamp>; r?: Record<string, Stamp>; n?: Record<string, CounterState> } = { c: this.#meta.c };
    if (this.#meta.d !== undefined) out.d = this.#meta.d;
    if (this.#f !== undefined && Object.keys(this.#f).length > 0) out.f = this.#f;
    if (this.#r !== undefined && Object.keys(this.#r).length > 0) out.r = this.#r;
    if (this.#n !== undefined && Object.keys(this.#n).length > 0) out.n = this.#n;
    return out;
  }

  /**
   * Finds the container of the path's last step, creating objects on the way. `register` is the
   * length of the shortest prefix that this edit replaces as a whole: the first array entered,
   * or the first object created, else the full path.
   */
  #walk(path: Path, create: boolean): { container: Container; register: number } {
    let container: Container = this.value;
    let register = path.length;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i] as string | number;
      const isLast = i === path.length - 1;
      if (typeof seg === 'number') {
        if (!Array.isArray(container) || seg >= container.length) {
          throw new QueryEvaluationError(`cannot SET ${showPath(path)}: index ${seg} is out of range of ${showPath(path.slice(0, i))}`);
        }
        register = Math.min(register, i);
        if (isLast) break;
      } else if (isLast) {
        break;
      }
      const holder = container as Record<string | number, JsonValue>;
      let next = holder[seg];
      const nextSeg = path[i + 1];
      if (typeof nextSeg === 'number') {
        if (!Array.isArray(next)) {
          throw new QueryEvaluationError(`cannot SET ${showPath(path)}: ${showPath(path.slice(0, i + 1))} is not an array`);
        }
      } else if (!isObject(next as JsonValue)) {
        if (!create) break;
        next = {};
        holder[seg] = next;
        register = Math.min(register, i + 1);
      }
      container = next as Container;
    }
    return { container, register };
  }

  #stampRegister(path: Path): void {
    const key = pathKey(path);
    this.#drop(key);
    (this.#f ??= {})[key] = this.#stamp;
    this.#remember(key);
  }

  // Removes every entry at or below a path: a new register there supersedes them. The path
  // itself is deleted directly; only nested keys can lie below it, so only those are scanned.
  #drop(key: string): void {
    const maps = [this.#f, this.#r, this.#n];
    for (const map of maps) if (map !== undefined) delete map[key];
    this.#nested.delete(key);
    for (const k of this.#nested) {
      if (!isAtOrBelow(k, key)) continue;
      for (const map of maps) if (map !== undefined) delete map[k];
      this.#nested.delete(k);
    }
  }

  #remember(key: string): void {
    if (key.includes(',')) this.#nested.add(key);
  }
}
