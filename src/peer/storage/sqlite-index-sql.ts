/**
 * The SQL of secondary indexes on SQLite: the two index columns of a document path, and the
 * extra WHERE terms ("hints") that let SQLite's planner use them.
 *
 * A path is indexed as two expressions: its rank in the cross-type order, then its value within
 * the rank. They are the very expressions ORDER BY sorts by (`sql-translate.ts` builds its ORDER
 * BY from them), so an ORDER BY on an indexed path reads the index in order instead of sorting.
 * Each index is partial, over one collection's live documents, and ends with `id`, the ORDER BY
 * tie-break.
 *
 * A hint is a condition implied by one top-level conjunct of the WHERE (`total > 5` implies
 * `rank = 2 AND value > 5`), written over the index's expressions. It is added beside the exact
 * condition, which stays: so the rows found are the same with or without the index, and the hint
 * only narrows which rows SQLite looks at.
 */
import type { Expr } from '../dql/ast.ts';
import { RANK, comparisonHolds, rankOf, type Value } from '../dql/values.ts';

/** SQL text of a string literal. */
export function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** SQL text of an identifier. */
export function sqlIdentifier(s: string): string {
  return `"${s.replaceAll('"', '""')}"`;
}

/** The rank of the value at `jp` (a JSON path as SQL text) in the cross-type order: false 0, true 1, number 2, string 3, array 4, object 5, null 6, MISSING 7. */
export function keyRankSql(jp: string): string {
  return `CASE json_type(body, ${jp}) WHEN 'false' THEN 0 WHEN 'true' THEN 1 WHEN 'integer' THEN 2 WHEN 'real' THEN 2 WHEN 'text' THEN 3 WHEN 'array' THEN 4 WHEN 'object' THEN 5 WHEN 'null' THEN 6 ELSE 7 END`;
}

/** The value at `jp` within its rank: the number or text itself, the sort key of an array or object. */
export function keyValueSql(jp: string): string {
  return `CASE WHEN json_type(body, ${jp}) IN ('array', 'object') THEN dql_sortkey(body -> ${jp}) ELSE json_extract(body, ${jp}) END`;
}

/** One key of an index: a JSON path as SQL text and its direction. */
export interface IndexKeySql {
  readonly jp: string;
  readonly descending: boolean;
}

/** `CREATE INDEX` of a secondary index over one collection's live documents. */
export function createIndexSql(sqliteName: string, collection: string, keys: readonly IndexKeySql[]): string {
  const columns = keys.flatMap((k) => {
    const dir = k.descending ? ' DESC' : '';
    return [`${keyRankSql(k.jp)}${dir}`, `${keyValueSql(k.jp)}${dir}`];
  });
  return `CREATE INDEX ${sqlIdentifier(sqliteName)} ON documents (${[...columns, 'id'].join(', ')}) WHERE collection = ${sqlString(collection)} AND deleted = 0`;
}

/**
 * The statistics SQLite's planner is given for the documents table (`sqlite_stat1` rows: index
 * name, then "rows, rows per distinct prefix of 1, 2, … columns"). They describe the shape the
 * store assumes, not its data, so they never go stale and need no ANALYZE: a collection is half
 * the table (SQLite's default would take `collection = ?` for ten rows and prefer it over any
 * index), a rank holds a fifth of a collection, a value about fifty documents. So an index
 * seek or an ORDER BY read from an index wins over reading the collection, as it does when the
 * condition is selective, which is what an application indexes a path for.
 */
export function plannerStatistics(indexes: readonly { readonly sqliteName: string; readonly keys: number }[]): [string, string][] {
  const table = 1_000_000;
  const collection = table / 2;
  const out: [string, string][] = [
    ['sqlite_autoindex_documents_1', `${table} ${collection} 1`],
    ['documents_by_txn', `${table} ${collection} 10`],
  ];
  for (const { sqliteName, keys } of indexes) {
    const perPrefix: number[] = [];
    let rows = collection;
    for (let k = 0; k < keys; k++) {
      rows = Math.max(1, Math.floor(rows / 5));
      perPrefix.push(rows);
      rows = Math.max(1, Math.floor(rows / 2000));
      perPrefix.push(rows);
    }
    out.push([sqliteName, [collection, ...perPrefix, 1].join(' ')]);
  }
  return out;
}

/** Above this magnitude a JSON integer may differ from the double it reads as; SQLite compares it exactly. */
const EXACT_INTEGERS = 2 ** 53;

function nextUp(x: number): number {
  const buffer = new DataView(new ArrayBuffer(8));
  buffer.setFloat64(0, x);
  const bits = buffer.getBigInt64(0);
  buffer.setBigInt64(0, x >= 0 ? bits + 1n : bits - 1n);
  return buffer.getFloat64(0);
}

function nextDown(x: number): number {
  return -nextUp(-x);
}

/** The smallest string greater than every string that starts with `prefix`, or undefined when none is. */
function prefixEnd(prefix: string): string | undefined {
  const points = [...prefix];
  while (points.length > 0) {
    const last = (points.pop() as string).codePointAt(0) as number;
    let next = last + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
    if (next <= 0x10ffff) return points.join('') + String.fromCodePoint(next);
  }
  return undefined;
}

/** The literal characters of a LIKE pattern before its first wildcard, and whether it has one. */
function likePrefix(pattern: string): { prefix: string; wildcard: boolean } {
  const at = pattern.search(/[%_]/);
  return at < 0 ? { prefix: pattern, wildcard: false } : { prefix: pattern.slice(0, at), wildcard: true };
}

const FLIP: Readonly<Record<string, string>> = { '=': '=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** What hints need of the translator: the JSON path of a path expression (undefined for `_id` or one it cannot write), a constant's value, a bound parameter. */
export interface HintContext {
  pathOf(expr: Expr): string | undefined;
  constantOf(expr: Expr): Value | undefined;
  bind(value: unknown): string;
}

/** The conjuncts of a condition's top-level AND. */
function conjuncts(expr: Expr, out: Expr[] = []): Expr[] {
  if (expr.kind === 'binary' && expr.op === 'AND') {
    conjuncts(expr.left, out);
    conjuncts(expr.right, out);
  } else out.push(expr);
  return out;
}

/**
 * A top-level conjunct of a WHERE with its hint: a SQL term it implies over an index's
 * expressions, and whether the two are true for the same documents (`exact`: then the hint may
 * stand in for the conjunct, whose false and unknown both leave a document out).
 */
export interface Conjunct {
  readonly expr: Expr;
  readonly hint: string | undefined;
  readonly exact: boolean;
}

/** The conjuncts of `where`, each with its hint where it constrains an indexed path (`indexed` holds their JSON paths as SQL text). */
export function indexHints(where: Expr | undefined, indexed: ReadonlySet<string>, ctx: HintContext): Conjunct[] {
  if (where === undefined) return [];
  const indexedPath = (e: Expr): string | undefined => {
    const jp = e.kind === 'path' ? ctx.pathOf(e) : undefined;
    return jp !== undefined && indexed.has(jp) ? jp : undefined;
  };
  return conjuncts(where).map((expr) => ({ expr, ...(hintFor(expr, indexedPath, ctx) ?? { hint: undefined, exact: false }) }));
}

type Hint = { readonly hint: string; readonly exact: boolean };

function hintFor(c: Expr, indexedPath: (e: Expr) => string | undefined, ctx: HintContext): Hint | undefined {
  switch (c.kind) {
    case 'path': {
      // `WHERE flag` holds exactly where flag is true.
      const jp = indexedPath(c);
      return jp === undefined ? undefined : { hint: `${keyRankSql(jp)} = ${RANK.true} AND ${keyValueSql(jp)} = ${RANK.true}`, exact: true };
    }
    case 'binary': {
      if (!(c.op in FLIP)) return undefined;
      const left = indexedPath(c.left);
      if (left !== undefined) return compareHint(left, c.op, ctx.constantOf(c.right), ctx);
      const right = indexedPath(c.right);
      if (right !== undefined) return compareHint(right, FLIP[c.op] as string, ctx.constantOf(c.left), ctx);
      return undefined;
    }
    case 'between': {
      const jp = c.negated ? undefined : indexedPath(c.value);
      if (jp === undefined) return undefined;
      const low = compareHint(jp, '>=', ctx.constantOf(c.low), ctx);
      const high = compareHint(jp, '<=', ctx.constantOf(c.high), ctx);
      if (low === undefined || high === undefined) {
        const one = low ?? high;
        return one === undefined ? undefined : { hint: one.hint, exact: false };
      }
      return { hint: `${low.hint} AND ${high.hint}`, exact: low.exact && high.exact };
    }
    case 'in': {
      const jp = c.negated ? undefined : indexedPath(c.needle);
      const list = jp === undefined ? undefined : ctx.constantOf(c.haystack);
      return jp === undefined || !Array.isArray(list) ? undefined : inHint(jp, list, ctx);
    }
    case 'like': {
      const jp = c.negated || c.caseInsensitive ? undefined : indexedPath(c.value);
      const pattern = jp === undefined ? undefined : ctx.constantOf(c.pattern);
      if (jp === undefined || typeof pattern !== 'string') return undefined;
      const { prefix, wildcard } = likePrefix(pattern);
      const value = keyValueSql(jp);
      const rank = `${keyRankSql(jp)} = ${RANK.string}`;
      if (!wildcard) return { hint: `${rank} AND ${value} = ${ctx.bind(prefix)}`, exact: false };
      if (prefix === '') return { hint: rank, exact: false };
      const end = prefixEnd(prefix);
      return { hint: `${rank} AND ${value} >= ${ctx.bind(prefix)}${end === undefined ? '' : ` AND ${value} < ${ctx.bind(end)}`}`, exact: false };
    }
    case 'is': {
      const jp = c.negated ? undefined : indexedPath(c.value);
      return jp === undefined ? undefined : { hint: `${keyRankSql(jp)} = ${c.test === 'NULL' ? RANK.null : RANK.missing}`, exact: true };
    }
    default:
      return undefined;
  }
}

/** A hint for `path op c`; `!=` and constants of no scalar type give none. */
function compareHint(jp: string, op: string, c: Value | undefined, ctx: HintContext): Hint | undefined {
  if (c === undefined || !(op in FLIP)) return undefined;
  const r = rankOf(c);
  const rank = keyRankSql(jp);
  if (r <= RANK.true) {
    // false < true; no other type is ordered against a boolean. A boolean's value column is its
    // rank (json_extract gives 0 or 1): naming it too lets a seek go on to the index's next key.
    const ranks = [RANK.false, RANK.true].filter((other) => comparisonHolds(op, other - r));
    return { hint: ranks.length === 0 ? '0' : `${rank} IN (${ranks.join(', ')}) AND ${keyValueSql(jp)} IN (${ranks.join(', ')})`, exact: true };
  }
  if (r !== RANK.number && r !== RANK.string) return undefined;
  const value = keyValueSql(jp);
  if (r === RANK.number && Math.abs(c as number) >= EXACT_INTEGERS) {
    // A stored integer that reads as c may be any integer between c's neighbours.
    const n = c as number;
    const above = `${value} > ${ctx.bind(op === '>' ? n : nextDown(n))}`;
    const below = `${value} < ${ctx.bind(op === '<' ? n : nextUp(n))}`;
    const terms = op === '=' ? [above, below] : op.startsWith('>') ? [above] : [below];
    return { hint: `${rank} = ${r} AND ${terms.join(' AND ')}`, exact: false };
  }
  // Within 2^53 the stored number and the double it reads as compare alike with c: the hint is the condition.
  return { hint: `${rank} = ${r} AND ${value} ${op} ${ctx.bind(c)}`, exact: true };
}

/** `path IN [list]` of scalars (and nulls, never equal): the ranks and values the list holds. */
function inHint(jp: string, list: readonly Value[], ctx: HintContext): Hint | undefined {
  const ranks = new Set<number>();
  const values: unknown[] = [];
  for (const item of list) {
    if (item === null) continue;
    const r = rankOf(item);
    // An array or object in the list may equal the document's: no index term covers those.
    if (r > RANK.string) return undefined;
    if (r === RANK.number && Math.abs(item as number) >= EXACT_INTEGERS) return undefined;
    ranks.add(r);
    values.push(r <= RANK.true ? r : item);
  }
  if (ranks.size === 0) return undefined;
  const long = values.length > 16;
  const valueList = long ? `SELECT value FROM json_each(${ctx.bind(JSON.stringify(values))})` : values.map((v) => ctx.bind(v)).join(', ');
  // Of one type, the list is matched exactly; of several, a number may meet the 0 or 1 of a boolean.
  const hint = `${keyRankSql(jp)} IN (${[...ranks].sort().join(', ')}) AND ${keyValueSql(jp)} IN (${valueList})`;
  return { hint, exact: ranks.size === 1 };
}
