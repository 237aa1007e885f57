/**
 * Translates a DQL condition and ORDER BY into PostgreSQL SQL over `doc`, the jsonb form of a
 * document's body (migration 3), with the exact semantics of the reference evaluator, as the
 * SQLite translation (src/peer/storage/sql-translate.ts) has them: three-valued logic, MISSING
 * (SQL NULL) apart from null (jsonb 'null'), range comparisons only between values of one type,
 * numbers compared as doubles (float8: JavaScript's numbers, also above 2^53), strings by code
 * point (the bytes of their UTF-8 form, `COLLATE "C"`), and the cross-type order for ORDER BY.
 *
 * Each condition is translated twice: SQL that holds exactly where it is true, and SQL that holds
 * exactly where it is false. NOT swaps the two, AND and OR combine them as Kleene logic does, and
 * a condition neither true nor false (unknown) satisfies neither. So no SQL NULL ever needs
 * negating, and every comparison stays a plain term PostgreSQL can seek an index with, also
 * under NOT and OR.
 *
 * A path is read natively (`jsonb_typeof`, `::float8`, `#>> '{}'`), or as its sort key
 * (`syncmesh_key`, sort-key.ts in SQL) where that is what an index holds, for `_id` (the `id`
 * column is its sort key), for arrays and objects, and for two paths compared with each other.
 * What has no SQL form (arithmetic, functions, ILIKE, a path against a computed value) throws
 * Untranslatable: the caller keeps it for the JavaScript evaluator.
 */
import type { JsonValue } from '../../shared/json.ts';
import {
  MISSING,
  RANK,
  comparisonHolds,
  comparisonTruth,
  evaluate,
  isConstant,
  isLikePatternTooLong,
  isRangeOperator,
  rankOf,
  sortKey,
  truth,
  type Expr,
  type OrderTerm,
  type Params,
  type PathSegment,
  type Value,
} from '../../peer/host.ts';

/** A condition (or part of one) PostgreSQL cannot evaluate exactly; `message` says which part. */
export class Untranslatable extends Error {}

/** SQL holding exactly where a condition is true (`t`) and exactly where it is false (`f`); NULL counts as neither. */
interface Cond {
  readonly t: string;
  readonly f: string;
}

type PathFrag = { readonly k: 'path'; readonly segments: readonly PathSegment[]; readonly isId: boolean };
type Frag = PathFrag | { readonly k: 'const'; readonly v: Value };

const TRUE = 'TRUE';
const FALSE = 'FALSE';
const NEVER: Cond = { t: FALSE, f: FALSE };
const FLIP: Readonly<Record<string, string>> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
/** The operator that holds where a range comparison of two values of one type does not. */
const NEGATED: Readonly<Record<string, string>> = { '<': '>=', '<=': '>', '>': '<=', '>=': '<' };
/** Sort keys of null and MISSING begin with these bytes: every other value's key is below the first. */
const NULL_KEY = "'\\x07'::bytea";
const MISSING_KEY = "'\\x08'::bytea";

/**
 * SQL text of a string literal. One with a backslash is an escape string (E'…'), which reads the
 * same whatever the server's standard_conforming_strings.
 */
export function pgString(s: string): string {
  if (s.includes('\0')) throw new Untranslatable('a text holding U+0000 cannot be written in PostgreSQL');
  const quoted = s.replaceAll("'", "''");
  return s.includes('\\') ? `E'${quoted.replaceAll('\\', '\\\\')}'` : `'${quoted}'`;
}

/** SQL text of a double: the shortest decimal that reads back as the same double, as JSON writes it. */
function pgFloat(n: number): string {
  return `'${String(n)}'::float8`;
}

/** SQL text of an identifier. */
export function pgIdentifier(s: string): string {
  return `"${s.replaceAll('"', '""')}"`;
}

/** A bytea literal: the sort keys compared with are written into the SQL, in hex. */
function byteaLiteral(bytes: Buffer): string {
  return `'\\x${bytes.toString('hex')}'::bytea`;
}

/**
 * The jsonb at a path of `doc` (SQL NULL where it leads nowhere), as `getPath` reads it: a key of
 * objects only (`->` text gives NULL elsewhere), a position in arrays only (PostgreSQL's `-> 0`
 * of a string or number is the value itself, so a position is read only of an array).
 */
export function pathSql(segments: readonly PathSegment[]): string {
  let sql = 'doc';
  for (const s of segments) {
    if (typeof s === 'number') {
      if (!Number.isSafeInteger(s) || s < 0) throw new Untranslatable(`array position ${s} cannot be read in SQL`);
      sql = `(CASE WHEN jsonb_typeof(${sql}) = 'array' THEN ${sql} -> ${s} END)`;
    } else sql += ` -> ${pgString(s)}`;
  }
  return sql;
}

/**
 * The sort key of the value at a path, as secondary indexes hold it: the query and the index must
 * write the very same expression for PostgreSQL to use the index.
 */
export function pathKeySql(segments: readonly PathSegment[]): string {
  return `syncmesh_key(${pathSql(segments)})`;
}

/** The first byte of the sort keys of each type's values, and the one after: booleans are one type for range comparisons. */
function typeBounds(rank: number): [string, string] {
  const [lo, hi] = rank <= RANK.true ? [1, 3] : [rank + 1, rank + 2];
  const hex = (n: number): string => `'\\x0${n}'::bytea`;
  return [hex(lo), hex(hi)];
}

function and(a: string, b: string): string {
  if (a === FALSE || b === FALSE) return FALSE;
  if (a === TRUE) return b;
  if (b === TRUE) return a;
  return `(${a} AND ${b})`;
}

function or(a: string, b: string): string {
  if (a === TRUE || b === TRUE) return TRUE;
  if (a === FALSE) return b;
  if (b === FALSE) return a;
  return `(${a} OR ${b})`;
}

function swap(c: Cond): Cond {
  return { t: c.f, f: c.t };
}

/**
 * Builds SQL of conditions and orders. Constants are written into the SQL, not bound: a condition
 * built for both truths keeps only one of them, and PostgreSQL refuses a parameter the statement
 * does not use.
 */
export class PgTranslator {
  readonly #args: Params;
  readonly #indexed: ReadonlySet<string>;

  /** `indexed`: the paths (`indexKeyOf`) a secondary index of the collection holds, compared by their sort keys so that it serves. */
  constructor(args: Params, indexed: ReadonlySet<string> = new Set()) {
    this.#args = args;
    this.#indexed = indexed;
  }

  /** SQL true exactly where the condition is true. @throws Untranslatable */
  condition(expr: Expr): string {
    return this.#cond(expr).t;
  }

  /** ORDER BY terms in the cross-type order, ending with `id` (the `_id` order) as the tie-break. @throws Untranslatable */
  orderBy(terms: readonly OrderTerm[]): string {
    const out: string[] = [];
    let endsWithId = false;
    for (const { expr, direction } of terms) {
      const f = this.#frag(expr);
      endsWithId = false;
      if (f.k === 'const') continue;
      const dir = direction === 'DESC' ? ' DESC' : '';
      out.push(`${this.#key(f)}${dir}`);
      endsWithId = f.isId;
    }
    if (!endsWithId) out.push('id');
    return out.join(', ');
  }

  #frag(expr: Expr): Frag {
    if (isConstant(expr)) return { k: 'const', v: evaluate(expr, { doc: {}, params: this.#args }) };
    if (expr.kind === 'path') {
      pathSql(expr.segments); // refuses what SQL cannot address, before any SQL is built
      return { k: 'path', segments: expr.segments, isId: expr.segments.length === 1 && expr.segments[0] === '_id' };
    }
    throw new Untranslatable(`${expr.kind === 'call' ? `${expr.name}()` : expr.kind === 'binary' ? `the operator ${expr.op}` : expr.kind} has no SQL form`);
  }

  /** The sort key of a path's value: `id` for `_id`. */
  #key(p: PathFrag): string {
    return p.isId ? 'id' : pathKeySql(p.segments);
  }

  /** Compared by sort key (an index holds it, or it is `_id`) rather than natively. */
  #byKey(p: PathFrag): boolean {
    return p.isId || this.#indexed.has(indexKeyOf(p.segments));
  }

  #cond(expr: Expr): Cond {
    if (isConstant(expr)) {
      const t = truth(evaluate(expr, { doc: {}, params: this.#args }));
      return t === null ? NEVER : t ? { t: TRUE, f: FALSE } : { t: FALSE, f: TRUE };
    }
    switch (expr.kind) {
      case 'path': {
        const p = this.#frag(expr) as PathFrag;
        if (this.#byKey(p)) return { t: `${this.#key(p)} = '\\x02'::bytea`, f: `${this.#key(p)} = '\\x01'::bytea` };
        const v = pathSql(p.segments);
        return { t: `${v} = 'true'::jsonb`, f: `${v} = 'false'::jsonb` };
      }
      case 'unary':
        if (expr.op === 'NOT') return swap(this.#cond(expr.operand));
        throw new Untranslatable(`unary ${expr.op} has no SQL form`);
      case 'binary': {
        if (expr.op === 'AND' || expr.op === 'OR') {
          const a = this.#cond(expr.left);
          const b = this.#cond(expr.right);
          return expr.op === 'AND' ? { t: and(a.t, b.t), f: or(a.f, b.f) } : { t: or(a.t, b.t), f: and(a.f, b.f) };
        }
        if (expr.op in FLIP) return this.#compare(expr.op, this.#frag(expr.left), this.#frag(expr.right));
        throw new Untranslatable(`the operator ${expr.op} has no SQL form`);
      }
      case 'between': {
        const v = this.#frag(expr.value);
        const lo = this.#compare('>=', v, this.#frag(expr.low));
        const hi = this.#compare('<=', v, this.#frag(expr.high));
        const c = { t: and(lo.t, hi.t), f: or(lo.f, hi.f) };
        return expr.negated ? swap(c) : c;
      }
      case 'in': {
        const c = this.#in(this.#frag(expr.needle), this.#frag(expr.haystack));
        return expr.negated ? swap(c) : c;
      }
      case 'like': {
        const c = this.#like(this.#frag(expr.value), this.#frag(expr.pattern), expr.caseInsensitive);
        return expr.negated ? swap(c) : c;
      }
      case 'is': {
        const p = this.#frag(expr.value) as PathFrag; // a constant was answered above
        let c: Cond;
        if (this.#byKey(p)) {
          const key = expr.test === 'NULL' ? NULL_KEY : MISSING_KEY;
          c = { t: `${this.#key(p)} = ${key}`, f: `${this.#key(p)} <> ${key}` };
        } else {
          const v = pathSql(p.segments);
          c =
            expr.test === 'NULL'
              ? { t: `jsonb_typeof(${v}) = 'null'`, f: `(${v} IS NULL OR jsonb_typeof(${v}) <> 'null')` }
              : { t: `${v} IS NULL`, f: `${v} IS NOT NULL` };
        }
        return expr.negated ? swap(c) : c;
      }
      default:
        throw new Untranslatable(`${expr.kind === 'call' ? `${expr.name}()` : expr.kind} has no SQL form`);
    }
  }

  #compare(op: string, left: Frag, right: Frag): Cond {
    if (left.k === 'const' && right.k === 'const') {
      // A BETWEEN of a constant, with a path for one bound only: this half is the same for every document.
      const t = comparisonTruth(op, left.v, right.v);
      return t === null ? NEVER : t ? { t: TRUE, f: FALSE } : { t: FALSE, f: TRUE };
    }
    if (left.k === 'path' && right.k === 'const') return this.#pathConst(op, left, right.v);
    if (left.k === 'const' && right.k === 'path') return this.#pathConst(FLIP[op] as string, right, left.v);
    return this.#pathPath(op, left as PathFrag, right as PathFrag);
  }

  /** Two paths: by their sort keys, equal only when neither is null or MISSING, ordered only within one type. */
  #pathPath(op: string, a: PathFrag, b: PathFrag): Cond {
    const ka = this.#key(a);
    const kb = this.#key(b);
    const known = `${ka} < ${NULL_KEY} AND ${kb} < ${NULL_KEY}`;
    if (op === '=' || op === '!=') {
      const eq = { t: `(${ka} = ${kb} AND ${ka} < ${NULL_KEY})`, f: `(${ka} <> ${kb} AND ${known})` };
      return op === '=' ? eq : swap(eq);
    }
    const group = (k: string): string => `(CASE get_byte(${k}, 0) WHEN 2 THEN 1 ELSE get_byte(${k}, 0) END)`;
    const same = `${known} AND ${group(ka)} = ${group(kb)}`;
    return { t: `(${same} AND ${ka} ${op} ${kb})`, f: `(${same} AND ${ka} ${NEGATED[op]} ${kb})` };
  }

  #pathConst(op: string, p: PathFrag, c: Value): Cond {
    // null and MISSING are never equal to, nor ordered against, anything.
    if (c === null || c === MISSING) return NEVER;
    const rank = rankOf(c);
    const range = isRangeOperator(op);
    if (this.#byKey(p) || rank > RANK.string || (typeof c === 'string' && c.includes('\0'))) {
      const k = this.#key(p);
      const kc = byteaLiteral(sortKey(c));
      if (!range) {
        const eq = { t: `${k} = ${kc}`, f: `(${k} <> ${kc} AND ${k} < ${NULL_KEY})` };
        return op === '=' ? eq : swap(eq);
      }
      const [lo, hi] = typeBounds(rank);
      const within = `${k} >= ${lo} AND ${k} < ${hi}`;
      return { t: `(${k} ${op} ${kc} AND ${within})`, f: `(${k} ${NEGATED[op]} ${kc} AND ${within})` };
    }
    const v = pathSql(p.segments);
    if (rank <= RANK.true) {
      // Booleans: false < true; nothing else is ordered against them, nor equal to them.
      const holding = (want: boolean): string[] => [false, true].filter((b) => comparisonHolds(op, rankOf(b) - rank) === want).map((b) => `'${b}'::jsonb`);
      if (!range) {
        const eq = { t: `${v} = '${c as boolean}'::jsonb`, f: `(${v} <> '${c as boolean}'::jsonb AND jsonb_typeof(${v}) <> 'null')` };
        return op === '=' ? eq : swap(eq);
      }
      const inSet = (s: string[]): string => (s.length === 0 ? FALSE : `${v} IN (${s.join(', ')})`);
      return { t: inSet(holding(true)), f: inSet(holding(false)) };
    }
    const type = rank === RANK.number ? 'number' : 'string';
    const typed = rank === RANK.number ? `(${v})::float8` : `(${v} #>> '{}') COLLATE "C"`;
    const value = `(CASE WHEN jsonb_typeof(${v}) = '${type}' THEN ${typed} END)`;
    const bound = rank === RANK.number ? pgFloat(c as number) : `${pgString(c as string)}::text`;
    if (!range) {
      const eq = { t: `${value} = ${bound}`, f: `(CASE WHEN jsonb_typeof(${v}) = '${type}' THEN ${typed} <> ${bound} ELSE jsonb_typeof(${v}) <> 'null' END)` };
      return op === '=' ? eq : swap(eq);
    }
    return { t: `${value} ${op} ${bound}`, f: `${value} ${NEGATED[op]} ${bound}` };
  }

  #in(needle: Frag, haystack: Frag): Cond {
    if (needle.k === 'path' && haystack.k === 'const') {
      // SQL semantics, as `inList`: found is true; not found is unknown when the list holds null.
      if (!Array.isArray(haystack.v)) return NEVER;
      const items = haystack.v as readonly JsonValue[];
      const hasNull = items.includes(null);
      const known = items.filter((i) => i !== null);
      const byKey = this.#byKey(needle) || known.some((i) => rankOf(i) > RANK.string || (typeof i === 'string' && i.includes('\0')));
      let t: string;
      let present: string;
      if (byKey) {
        const k = this.#key(needle);
        t = known.length === 0 ? FALSE : `${k} IN (${known.map((i) => byteaLiteral(sortKey(i))).join(', ')})`;
        present = `${k} < ${NULL_KEY}`;
      } else {
        const v = pathSql(needle.segments);
        const parts: string[] = [];
        const booleans = known.filter((i) => typeof i === 'boolean');
        if (booleans.length > 0) parts.push(`${v} IN (${booleans.map((b) => `'${b}'::jsonb`).join(', ')})`);
        const numbers = known.filter((i) => typeof i === 'number');
        if (numbers.length > 0)
          parts.push(
            `(CASE WHEN jsonb_typeof(${v}) = 'number' THEN (${v})::float8 END) = ANY(${`ARRAY[${numbers.map((n) => pgFloat(n as number)).join(', ')}]`})`,
          );
        const strings = known.filter((i) => typeof i === 'string');
        if (strings.length > 0)
          parts.push(
            `(CASE WHEN jsonb_typeof(${v}) = 'string' THEN (${v} #>> '{}') COLLATE "C" END) = ANY(${`ARRAY[${strings.map((t) => `${pgString(t as string)}::text`).join(', ')}]`})`,
          );
        t = parts.length === 0 ? FALSE : parts.length === 1 ? (parts[0] as string) : `(${parts.join(' OR ')})`;
        present = `jsonb_typeof(${v}) <> 'null'`;
      }
      if (hasNull) return { t, f: FALSE };
      return { t, f: t === FALSE ? present : `(${present} AND NOT coalesce(${t}, false))` };
    }
    if (needle.k === 'const' && haystack.k === 'path' && !haystack.isId) {
      const n = needle.v;
      if (n === null || n === MISSING) return NEVER;
      const v = pathSql(haystack.segments);
      const isArray = `jsonb_typeof(${v}) = 'array'`;
      const noNull = `NOT (${v} @> '[null]'::jsonb)`;
      let found: string;
      if (rankOf(n) <= RANK.string && !(typeof n === 'string' && n.includes('\0'))) {
        // Containment of a one-element array: its top-level elements only, compared as jsonb (numbers by value).
        found = `${v} @> ${pgString(JSON.stringify([n]))}::jsonb`;
      } else {
        found = `EXISTS (SELECT 1 FROM jsonb_array_elements(${v}) AS e(v) WHERE syncmesh_key(e.v) = ${byteaLiteral(sortKey(n))})`;
      }
      return { t: `(${isArray} AND ${found})`, f: `(${isArray} AND NOT ${found} AND ${noNull})` };
    }
    if (needle.k === 'path' && haystack.k === 'path' && !haystack.isId) {
      // Found: an element with the needle's sort key. Not found is unknown when the array holds null.
      const k = this.#key(needle);
      const v = pathSql(haystack.segments);
      const isArray = `jsonb_typeof(${v}) = 'array' AND ${k} < ${NULL_KEY}`;
      const found = `EXISTS (SELECT 1 FROM jsonb_array_elements(${v}) AS e(v) WHERE syncmesh_key(e.v) = ${k})`;
      return { t: `(${isArray} AND ${found})`, f: `(${isArray} AND NOT ${found} AND NOT (${v} @> '[null]'::jsonb))` };
    }
    throw new Untranslatable('IN of a computed value has no SQL form');
  }

  #like(value: Frag, pattern: Frag, caseInsensitive: boolean): Cond {
    // ILIKE lower-cases with JavaScript's Unicode rules, which PostgreSQL's lower() does not share.
    if (caseInsensitive) throw new Untranslatable('ILIKE has no SQL form with the same case folding');
    if (value.k !== 'path' || pattern.k !== 'const') throw new Untranslatable('LIKE of a computed value or pattern has no SQL form');
    const p = pattern.v;
    if (p === null || p === MISSING) return NEVER;
    const v = pathSql(value.segments);
    const present = `jsonb_typeof(${v}) <> 'null'`;
    if (typeof p !== 'string') return { t: FALSE, f: present };
    // Too long: the evaluator refuses it with its own error. U+0000 cannot be bound as text.
    if (isLikePatternTooLong(p) || p.includes('\0')) throw new Untranslatable('this LIKE pattern is left to the evaluator');
    // No escape character, as DQL has none; `_` is one character (code point) in a UTF8 database.
    const t = `(CASE WHEN jsonb_typeof(${v}) = 'string' THEN (${v} #>> '{}') COLLATE "C" END) LIKE ${pgString(p)}::text ESCAPE ''`;
    const f = `(${present} AND NOT coalesce(${t}, false))`;
    const wildcard = p.search(/[%_]/);
    const prefix = wildcard < 0 ? p : p.slice(0, wildcard);
    if (!this.#byKey(value) || prefix === '') return { t, f };
    // An indexed path: the sort keys of the strings that begin with the prefix are one range of
    // the index (its UTF-8 bytes after the tag; UTF-8 has no 0xFF byte, so the last one can grow).
    const low = Buffer.concat([Buffer.from([4]), Buffer.from(prefix, 'utf8')]);
    const high = Buffer.from(low);
    high[high.length - 1] = (high[high.length - 1] as number) + 1;
    const k = this.#key(value);
    return { t: `(${k} >= ${byteaLiteral(low)} AND ${k} < ${byteaLiteral(high)} AND ${t})`, f };
  }
}

/** The name of a path among a collection's indexed paths. */
export function indexKeyOf(segments: readonly PathSegment[]): string {
  return JSON.stringify(segments);
}

/** The conjuncts of a condition's top-level AND. */
export function conjunctsOf(expr: Expr, out: Expr[] = []): Expr[] {
  if (expr.kind === 'binary' && expr.op === 'AND') {
    conjunctsOf(expr.left, out);
    conjunctsOf(expr.right, out);
  } else out.push(expr);
  return out;
}
