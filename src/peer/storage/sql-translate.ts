/**
 * Translates a DQL condition and ORDER BY into SQLite SQL over the `body` JSON column, with the
 * exact semantics of the reference evaluator (`evaluate.ts`): three-valued logic as SQL NULL,
 * MISSING (json_type NULL) apart from null (json_type 'null'), range comparisons only between
 * values of one type (NULL otherwise), and the cross-type order for ORDER BY.
 *
 * Comparisons of a path with a scalar, IN lists of scalars, LIKE and `_id` lookups become plain
 * SQL that SQLite runs without calling JavaScript (`_id` uses the primary key). Everything else
 * is still filtered inside SQLite, through deterministic functions registered by
 * `sql-functions.ts` that call the evaluator's own operators on JSON text.
 */
import type { Expr, OrderTerm, PathSegment } from '../dql/ast.ts';
import { evaluate, truth, type Params } from '../dql/evaluate.ts';
import { isLikePatternTooLong, likeToGlob } from '../dql/like.ts';
import { sortKey } from '../dql/sort-key.ts';
import { MISSING, RANK, comparisonHolds, isRangeOperator, rankOf, type Value } from '../dql/values.ts';
import { indexHints, keyRankSql, keyValueSql, sqlString, type Conjunct } from './sqlite-index-sql.ts';

/** Raised for a condition SQLite cannot express exactly; the caller filters in JavaScript. */
export class Untranslatable extends Error {}

type Frag =
  | { readonly k: 'path'; readonly jp: string; readonly isId: boolean }
  | { readonly k: 'const'; readonly v: Value }
  | { readonly k: 'bool'; readonly sql: string } // 1, 0 or NULL (unknown)
  | { readonly k: 'json'; readonly sql: string }; // JSON text, NULL for MISSING

/** json_type names by rank of the cross-type order (false, true, number, string, array, object). */
const TYPES_BY_RANK: readonly (readonly string[])[] = [['false'], ['true'], ['integer', 'real'], ['text'], ['array'], ['object']];
const SQL_OP: Readonly<Record<string, string>> = { '=': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };
const FLIP: Readonly<Record<string, string>> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** The JSON path of a DQL path as SQL text, as index definitions and queries both write it. */
export function jsonPath(segments: readonly PathSegment[]): string {
  let jp = '$';
  for (const s of segments) {
    if (typeof s === 'number') jp += `[${s}]`;
    // SQLite reads SQL text only up to a NUL, so a key holding one cannot be inlined either.
    else if (s.includes('"') || s.includes('\\') || s.includes('\0')) throw new Untranslatable(`key ${JSON.stringify(s)} cannot be written as a JSON path`);
    else jp += `."${s}"`;
  }
  return sqlString(jp);
}

/**
 * The value at a path, known to be of the given rank, as SQL compares it with a bound constant.
 * Numbers are read as REAL: SQLite reads an integer such as 1152921504606847000 (how JSON writes
 * the double 2^60) exactly as a 64-bit integer, which differs from the double JavaScript reads.
 */
/** IN lists longer than this are bound as one JSON array. */
const LONG_IN_LIST = 16;

function extracted(jp: string, rank: number): string {
  return rank === RANK.number ? `CAST(json_extract(body, ${jp}) AS REAL)` : `json_extract(body, ${jp})`;
}

/** Is the expression the same for every document (no path in it)? */
export function isConstant(expr: Expr): boolean {
  switch (expr.kind) {
    case 'literal':
    case 'param':
      return true;
    case 'path':
      return false;
    case 'array':
      return expr.items.every(isConstant);
    case 'object':
      return expr.entries.every((e) => isConstant(e.value));
    case 'unary':
      return isConstant(expr.operand);
    case 'binary':
      return isConstant(expr.left) && isConstant(expr.right);
    case 'in':
      return isConstant(expr.needle) && isConstant(expr.haystack);
    case 'like':
      return isConstant(expr.value) && isConstant(expr.pattern);
    case 'between':
      return isConstant(expr.value) && isConstant(expr.low) && isConstant(expr.high);
    case 'is':
      return isConstant(expr.value);
    case 'call':
      return !expr.star && expr.args.every(isConstant);
  }
}

/** Builds SQL fragments; bound values are collected as named parameters `@b0`, `@b1`, …. */
export class SqlTranslator {
  readonly binds: Record<string, unknown> = {};
  readonly #params: Params;
  #next = 0;

  constructor(params: Params) {
    this.#params = params;
  }

  /** A WHERE condition: SQL that is 1 exactly where the DQL condition is true. */
  condition(expr: Expr): string {
    return this.#toBool(this.#frag(expr));
  }

  /** ORDER BY terms in the cross-type order, ending with `_id` as the tie-break. */
  orderBy(terms: readonly OrderTerm[]): string {
    const out: string[] = [];
    let endsWithId = false;
    for (const { expr, direction } of terms) {
      const f = this.#frag(expr);
      const dir = direction === 'DESC' ? ' DESC' : '';
      endsWithId = false;
      if (f.k === 'const') continue;
      if (f.k === 'path' && f.isId) {
        out.push(`id${dir}`);
        endsWithId = true;
      } else if (f.k === 'path') {
        // The columns of an index on the path (sqlite-index-sql.ts), so that one serves the order.
        out.push(`${keyRankSql(f.jp)}${dir}`, `${keyValueSql(f.jp)}${dir}`);
      } else {
        out.push(`dql_sortkey(${this.#toJson(f)})${dir}`);
      }
    }
    if (!endsWithId) out.push('id');
    return out.join(', ');
  }

  /**
   * The condition's top-level conjuncts, each with the term it implies over an indexed path
   * (their JSON paths as SQL text), so that SQLite can seek an index (see sqlite-index-sql.ts).
   */
  conjuncts(where: Expr | undefined, indexed: ReadonlySet<string>): Conjunct[] {
    return indexHints(where, indexed, {
      pathOf: (e) => this.indexablePath(e),
      constantOf: (e) => (isConstant(e) ? evaluate(e, { doc: {}, params: this.#params }) : undefined),
      bind: (v) => this.#bind(v),
    });
  }

  /** The JSON path (as SQL text) of a path an index may hold: not `_id`, none with a key SQL cannot write; else undefined. */
  indexablePath(e: Expr): string | undefined {
    if (e.kind !== 'path' || (e.segments.length === 1 && e.segments[0] === '_id')) return undefined;
    try {
      return jsonPath(e.segments);
    } catch (error) {
      if (error instanceof Untranslatable) return undefined;
      throw error;
    }
  }

  #bind(value: unknown): string {
    const name = `b${this.#next++}`;
    this.binds[name] = value;
    return `@${name}`;
  }

  #frag(expr: Expr): Frag {
    if (isConstant(expr)) return { k: 'const', v: evaluate(expr, { doc: {}, params: this.#params }) };
    switch (expr.kind) {
      case 'path':
        return { k: 'path', jp: jsonPath(expr.segments), isId: expr.segments.length === 1 && expr.segments[0] === '_id' };
      case 'array':
        return { k: 'json', sql: `dql_array(${expr.items.map((i) => this.#toJson(this.#frag(i))).join(', ')})` };
      case 'object':
        return {
          k: 'json',
          sql: `dql_object(${expr.entries.map((e) => `${this.#bind(e.key)}, ${this.#toJson(this.#frag(e.value))}`).join(', ')})`,
        };
      case 'unary':
        if (expr.op === 'NOT') return { k: 'bool', sql: `(NOT ${this.#toBool(this.#frag(expr.operand))})` };
        return { k: 'json', sql: `dql_apply('${expr.op === '-' ? 'neg' : 'pos'}', ${this.#toJson(this.#frag(expr.operand))})` };
      case 'binary':
        if (expr.op === 'AND' || expr.op === 'OR') {
          return { k: 'bool', sql: `(${this.#toBool(this.#frag(expr.left))} ${expr.op} ${this.#toBool(this.#frag(expr.right))})` };
        }
        if (expr.op in SQL_OP) return { k: 'bool', sql: this.#compare(expr.op, this.#frag(expr.left), this.#frag(expr.right)) };
        return { k: 'json', sql: `dql_apply(${sqlString(expr.op)}, ${this.#toJson(this.#frag(expr.left))}, ${this.#toJson(this.#frag(expr.right))})` };
      case 'in': {
        const sql = this.#in(this.#frag(expr.needle), this.#frag(expr.haystack));
        return { k: 'bool', sql: expr.negated ? `(NOT ${sql})` : sql };
      }
      case 'like': {
        const sql = this.#like(this.#frag(expr.value), this.#frag(expr.pattern), expr.caseInsensitive);
        return { k: 'bool', sql: expr.negated ? `(NOT ${sql})` : sql };
      }
      case 'between': {
        const v = this.#frag(expr.value);
        const sql = `(${this.#compare('>=', v, this.#frag(expr.low))} AND ${this.#compare('<=', v, this.#frag(expr.high))})`;
        return { k: 'bool', sql: expr.negated ? `(NOT ${sql})` : sql };
      }
      case 'is': {
        const f = this.#frag(expr.value);
        const subject = f.k === 'path' ? `json_type(body, ${f.jp})` : this.#toJson(f);
        const test = expr.test === 'NULL' ? `'null'` : 'NULL';
        return { k: 'bool', sql: `(${subject} IS ${expr.negated ? 'NOT ' : ''}${test})` };
      }
      case 'call':
        if (expr.star) throw new Untranslatable(`${expr.name}(*) is an aggregate`);
        return { k: 'json', sql: `dql_apply(${sqlString(expr.name)}, ${expr.args.map((a) => this.#toJson(this.#frag(a))).join(', ')})` };
      default:
        throw new Untranslatable(`${expr.kind} cannot be translated`);
    }
  }

  #toJson(f: Frag): string {
    switch (f.k) {
      case 'path':
        return `(body -> ${f.jp})`;
      case 'const':
        return f.v === MISSING ? 'NULL' : this.#bind(JSON.stringify(f.v));
      case 'bool':
        return `(CASE ${f.sql} WHEN 1 THEN 'true' WHEN 0 THEN 'false' ELSE 'null' END)`;
      case 'json':
        return f.sql;
    }
  }

  #toBool(f: Frag): string {
    switch (f.k) {
      case 'path':
        return `(CASE json_type(body, ${f.jp}) WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`;
      case 'const': {
        const t = truth(f.v);
        return t === null ? 'NULL' : t ? '1' : '0';
      }
      case 'bool':
        return f.sql;
      case 'json':
        return `(CASE ${f.sql} WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`;
    }
  }

  #compare(op: string, left: Frag, right: Frag): string {
    if (left.k === 'path' && right.k === 'const') return this.#comparePathConst(op, left, right.v);
    if (right.k === 'path' && left.k === 'const') return this.#comparePathConst(FLIP[op] as string, right, left.v);
    return `dql_cmp(${sqlString(op)}, ${this.#toJson(left)}, ${this.#toJson(right)})`;
  }

  // `path op constant`: one json_type per row, json_extract only for a constant of the path's type.
  // A type without a branch (null, MISSING, and for a range every other type) gives NULL: unknown.
  #comparePathConst(op: string, path: Extract<Frag, { k: 'path' }>, c: Value): string {
    if (c === null || c === MISSING) return 'NULL';
    const rank = rankOf(c);
    if (rank > 3) return `dql_cmp(${sqlString(op)}, ${this.#toJson(path)}, ${this.#toJson({ k: 'const', v: c })})`;
    // A live document always has its _id, so `_id = c` is a primary-key lookup.
    if (path.isId && (op === '=' || op === '!=')) return `(id ${SQL_OP[op]} ${this.#bind(sortKey(c))})`;
    const range = isRangeOperator(op);
    const branches: string[] = [];
    TYPES_BY_RANK.forEach((types, r) => {
      let result: string;
      if (r === rank) result = rank <= 1 ? (comparisonHolds(op, 0) ? '1' : '0') : `${extracted(path.jp, rank)} ${SQL_OP[op]} ${this.#bind(c)}`;
      // Different types: never equal; ordered by a range only when both are booleans (false < true).
      else if (!range || (r <= RANK.true && rank <= RANK.true)) result = comparisonHolds(op, r < rank ? -1 : 1) ? '1' : '0';
      else return;
      for (const t of types) branches.push(`WHEN '${t}' THEN ${result}`);
    });
    return `(CASE json_type(body, ${path.jp}) ${branches.join(' ')} END)`;
  }

  #in(needle: Frag, haystack: Frag): string {
    if (needle.k === 'path' && haystack.k === 'const' && Array.isArray(haystack.v) && haystack.v.length > 0) {
      const items = haystack.v;
      const hasNull = items.includes(null);
      const known = items.filter((v) => v !== null);
      if (known.every((v) => rankOf(v) <= 3)) {
        // A long list is bound once, as a JSON array read by json_each: SQLite limits how many
        // variables one statement may have, and one bind keeps the SQL text (and its cache) stable.
        const long = known.length > LONG_IN_LIST;
        if (needle.isId) {
          const keys = known.map((v) => sortKey(v));
          const sql =
            known.length === 0
              ? '0'
              : long
                ? `(id IN (SELECT unhex(value) FROM json_each(${this.#bind(JSON.stringify(keys.map((k) => k.toString('hex'))))})))`
                : `(id IN (${keys.map((k) => this.#bind(k)).join(', ')}))`;
          return hasNull ? `NULLIF(${sql}, 0)` : sql;
        }
        const list = (vs: readonly Value[], rank: number): string => {
          if (vs.length === 0) return '0';
          if (!long) return `${extracted(needle.jp, rank)} IN (${vs.map((v) => this.#bind(v)).join(', ')})`;
          const value = rank === RANK.number ? 'CAST(value AS REAL)' : 'value';
          return `${extracted(needle.jp, rank)} IN (SELECT ${value} FROM json_each(${this.#bind(JSON.stringify(vs))}))`;
        };
        const numbers = list(
          known.filter((v) => typeof v === 'number'),
          RANK.number,
        );
        const strings = list(
          known.filter((v) => typeof v === 'string'),
          RANK.string,
        );
        const sql =
          `(CASE json_type(body, ${needle.jp}) WHEN 'false' THEN ${known.includes(false) ? 1 : 0} WHEN 'true' THEN ${known.includes(true) ? 1 : 0} ` +
          `WHEN 'integer' THEN ${numbers} WHEN 'real' THEN ${numbers} WHEN 'text' THEN ${strings} WHEN 'array' THEN 0 WHEN 'object' THEN 0 END)`;
        return hasNull ? `NULLIF(${sql}, 0)` : sql;
      }
    }
    return `dql_in(${this.#toJson(needle)}, ${this.#toJson(haystack)})`;
  }

  #like(value: Frag, pattern: Frag, caseInsensitive: boolean): string {
    // GLOB reads text only up to its first NUL character, so text holding one goes to dql_like.
    // A pattern over the length cap goes there too: dql_like refuses it as the evaluator does,
    // where SQLite would fail with its own error (LIKE or GLOB pattern too complex).
    // GLOB itself is fine on patterns of many `*`: SQLite gives up at the first one that cannot
    // match (10,000 rows of 200 characters against `%a` × 20 + `%b` in well under 0.1 s).
    const p = pattern.k === 'const' ? pattern.v : undefined;
    if (!caseInsensitive && value.k === 'path' && typeof p === 'string' && !p.includes('\0') && !isLikePatternTooLong(p)) {
      const others = ['false', 'true', 'integer', 'real', 'array', 'object'].map((t) => `WHEN '${t}' THEN 0`).join(' ');
      const text = `json_extract(body, ${value.jp})`;
      const glob = `CASE WHEN instr(CAST(${text} AS BLOB), X'00') > 0 THEN dql_like(0, ${this.#toJson(value)}, ${this.#toJson(pattern)}) ELSE ${text} GLOB ${this.#bind(likeToGlob(p))} END`;
      return `(CASE json_type(body, ${value.jp}) WHEN 'text' THEN ${glob} ${others} END)`;
    }
    return `dql_like(${caseInsensitive ? 1 : 0}, ${this.#toJson(value)}, ${this.#toJson(pattern)})`;
  }
}
