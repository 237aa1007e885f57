/**
 * The SQL a document query runs on PostgreSQL: its condition, ORDER BY, LIMIT and OFFSET
 * translated (pg-translate.ts) where they can be, and what cannot left to the reference evaluator.
 *
 * A condition that has no SQL form as a whole is split at its top-level AND: the conjuncts that
 * translate still filter in PostgreSQL, and only the documents they let through are read and
 * checked in JavaScript against the others. Then ORDER BY, LIMIT and OFFSET run in JavaScript
 * too (they apply after the whole condition), as they do when an ORDER BY term has no SQL form.
 */
import type { DocumentQuery, Expr } from '../../peer/host.ts';
import { PgTranslator, Untranslatable, conjunctsOf, pgString } from './pg-translate.ts';

export interface PgQueryPlan {
  /** `AND …` terms after the collection's live documents; empty when SQL filters nothing more. */
  readonly where: string;
  /** The ORDER BY, or undefined when JavaScript orders, limits and offsets. */
  readonly order: string | undefined;
  /** What the evaluator checks on the documents SQL finds; undefined when SQL answers the condition. */
  readonly residual: Expr | undefined;
  /** Why part of the query is left to JavaScript, for the DEBUG log; undefined when none is. */
  readonly fallback: string | undefined;
}

/** A collection's live documents: the collection is written as a literal, so that PostgreSQL can use the collection's partial indexes. */
export function liveSql(collection: string): string {
  return `collection = ${pgString(collection)} AND NOT deleted`;
}

/** Does one query of the collection need its documents that have no jsonb form (U+0000 in their body)? One index probe. */
export function unparsedSql(collection: string): string {
  return `SELECT EXISTS (SELECT 1 FROM documents WHERE collection = ${pgString(collection)} AND doc IS NULL AND NOT deleted)`;
}

/** Plans a query; `indexed` names the paths the collection's secondary indexes hold (`indexKeyOf`). @throws Untranslatable for a collection name SQL cannot write. */
export function planQuery(query: DocumentQuery, indexed: ReadonlySet<string>): PgQueryPlan {
  pgString(query.collection);
  const t = new PgTranslator(query.params, indexed);
  let where = '';
  let residual: Expr | undefined;
  const reasons: string[] = [];
  if (query.where !== undefined) {
    try {
      where = ` AND ${t.condition(query.where)}`;
    } catch (error) {
      if (!(error instanceof Untranslatable)) throw error;
      const left: Expr[] = [];
      for (const conjunct of conjunctsOf(query.where)) {
        try {
          where += ` AND ${t.condition(conjunct)}`;
        } catch (inner) {
          if (!(inner instanceof Untranslatable)) throw inner;
          reasons.push(inner.message);
          left.push(conjunct);
        }
      }
      residual = left.reduce((a, b) => ({ kind: 'binary', op: 'AND', left: a, right: b, pos: a.pos }));
    }
  }
  let order: string | undefined;
  if (residual === undefined) {
    try {
      order = t.orderBy(query.orderBy);
    } catch (error) {
      if (!(error instanceof Untranslatable)) throw error;
      reasons.push(`ORDER BY: ${error.message}`);
    }
  }
  return { where, order, residual, fallback: reasons.length === 0 ? undefined : reasons.join('; ') };
}
