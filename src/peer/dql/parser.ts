/**
 * The DQL parser: statements here, expressions in parse-expression.ts. One `parseX()` method per
 * grammar rule with the rule in the comment above it. Keywords are case-insensitive; the reserved
 * words are listed in `RESERVED_WORDS`, every other keyword (INSERT, SET, COLLECTION, ASC, …) is
 * recognised only where the grammar expects it and is otherwise an ordinary identifier.
 */
import { ParseError } from '../errors.ts';
import type {
  Command,
  ConflictPolicy,
  CreateIndexStatement,
  DropIndexStatement,
  IndexKeyClause,
  DeleteStatement,
  EvictStatement,
  Expr,
  IncrementClause,
  InsertStatement,
  OrderTerm,
  PathSegment,
  Projection,
  SelectStatement,
  SetClause,
  Statement,
  UpdateStatement,
} from './ast.ts';
import { TokenKind, type Token } from './lexer.ts';
import { ExpressionParser } from './parse-expression.ts';

export { MAX_EXPRESSION_HEIGHT, MAX_NESTING_DEPTH, RESERVED_WORDS } from './parse-expression.ts';

/** Statements longer than this many characters (UTF-16 code units) are refused unread. */
export const MAX_STATEMENT_LENGTH = 1_000_000;

/**
 * Parses one DQL statement. A path that starts with the statement's collection alias (and has
 * more segments) loses that first segment: `SELECT o.total FROM orders o` reads `total`.
 *
 * @throws ParseError (`query/invalid`) naming the line, column, what was expected and what was found.
 */
export function parseStatement(text: string): Statement {
  if (text.length > MAX_STATEMENT_LENGTH) {
    throw new ParseError(
      `statement is longer than ${MAX_STATEMENT_LENGTH} characters`,
      { line: 1, column: 1, offset: 0 },
      {
        expected: `at most ${MAX_STATEMENT_LENGTH} characters`,
        found: `${text.length} characters`,
      },
    );
  }
  return withoutAlias(new StatementParser(text).parseDocument());
}

/**
 * Parses a statement or a command of its own (`CREATE INDEX`, `DROP INDEX`, `EXPLAIN …`).
 *
 * @throws ParseError (`query/invalid`) as `parseStatement` does.
 */
export function parseCommand(text: string): Command {
  if (text.length > MAX_STATEMENT_LENGTH) return parseStatement(text); // refused there, with its message
  const parser = new StatementParser(text);
  const command = parser.parseCommandDocument();
  if (command.kind === 'explain') return { ...command, statement: withoutAlias(command.statement) };
  return command.kind === 'create-index' || command.kind === 'drop-index' ? command : withoutAlias(command);
}

/** The first word of the commands `parseCommand` reads beyond statements. */
export const COMMAND_WORDS: ReadonlySet<string> = new Set(['CREATE', 'DROP', 'EXPLAIN']);

/**
 * Parses a condition on its own, as the older query API takes it (`collection(name).find('isDeleted == false')`).
 * An empty condition is a ParseError, as the spec requires.
 */
export function parseCondition(text: string): Expr {
  if (text.length > MAX_STATEMENT_LENGTH) {
    throw new ParseError(`query is longer than ${MAX_STATEMENT_LENGTH} characters`, { line: 1, column: 1, offset: 0 });
  }
  return new StatementParser(text).parseWholeCondition();
}

type CollectionRef = { readonly collection: string; readonly alias: string | undefined };

const NO_WORDS: ReadonlySet<string> = new Set();
/** Contextual keywords that may follow a collection name, so are never read as its bare alias. */
const UPDATE_CLAUSES: ReadonlySet<string> = new Set(['SET', 'UNSET', 'APPLY']);
const INSERT_KINDS: ReadonlySet<string> = new Set(['DOCUMENTS', 'VALUES']);

class StatementParser extends ExpressionParser {
  // Condition : Expression <end of input>
  parseWholeCondition(): Expr {
    const expr = this.parseExpression();
    if (this.token.kind !== TokenKind.EOF) throw this.unexpected('end of query');
    return expr;
  }

  // Document : Statement <end of input>
  parseDocument(): Statement {
    const statement = this.parseStatement();
    if (this.token.kind !== TokenKind.EOF) throw this.unexpected('end of statement');
    return statement;
  }

  // CommandDocument : (Statement | CreateIndex | DropIndex | Explain) <end of input>
  parseCommandDocument(): Command {
    let command: Command;
    if (this.isKeyword('CREATE')) command = this.parseCreateIndex();
    else if (this.isKeyword('DROP')) command = this.parseDropIndex();
    else if (this.isKeyword('EXPLAIN')) {
      const { pos } = this.lexer.advance();
      command = { kind: 'explain', statement: this.parseStatement(), pos };
    } else command = this.parseStatement();
    if (this.token.kind !== TokenKind.EOF) throw this.unexpected('end of statement');
    return command;
  }

  // CreateIndex : CREATE INDEX (IF NOT EXISTS)? Name ON CollectionName "(" IndexKey ("," IndexKey)* ")"
  // IndexKey : Path (ASC | DESC)?
  parseCreateIndex(): CreateIndexStatement {
    const { pos } = this.expectKeyword('CREATE');
    this.expectKeyword('INDEX');
    let ifNotExists = false;
    if (this.skipKeyword('IF')) {
      this.expectKeyword('NOT');
      this.expectKeyword('EXISTS');
      ifNotExists = true;
    }
    const name = this.parseName('an index name');
    this.expectKeyword('ON');
    const collection = this.parseCollectionName(NO_WORDS);
    this.expectPunct('(');
    const keys: IndexKeyClause[] = [];
    do {
      const path = this.parsePath();
      const direction = this.skipKeyword('DESC') ? 'DESC' : (this.skipKeyword('ASC'), 'ASC');
      keys.push({ path: path.segments, direction, pos: path.pos });
    } while (this.skipPunct(','));
    this.expectPunct(')');
    return { kind: 'create-index', name, collection, ifNotExists, keys, pos };
  }

  // DropIndex : DROP INDEX (IF EXISTS)? Name ON CollectionName
  parseDropIndex(): DropIndexStatement {
    const { pos } = this.expectKeyword('DROP');
    this.expectKeyword('INDEX');
    let ifExists = false;
    if (this.skipKeyword('IF')) {
      this.expectKeyword('EXISTS');
      ifExists = true;
    }
    const name = this.parseName('an index name');
    this.expectKeyword('ON');
    const collection = this.parseCollectionName(NO_WORDS);
    return { kind: 'drop-index', name, collection, ifExists, pos };
  }

  // Statement : Select | Insert | Update | Delete | Evict
  parseStatement(): Statement {
    switch (this.token.keyword) {
      case 'SELECT':
        return this.parseSelect();
      case 'INSERT':
        return this.parseInsert();
      case 'UPDATE':
        return this.parseUpdate();
      case 'DELETE':
        return this.parseDelete();
      case 'EVICT':
        return this.parseEvict();
      default:
        throw this.unexpected(
          COMMAND_WORDS.has(this.token.keyword) ? 'a statement (CREATE INDEX, DROP INDEX and EXPLAIN run on their own, through execute)' : 'a statement',
        );
    }
  }

  // Select : SELECT DISTINCT? Projection ("," Projection)* FROM CollectionRef Where? GroupBy? OrderBy? Limit? Offset?
  parseSelect(): SelectStatement {
    const { pos } = this.expectKeyword('SELECT');
    const distinct = this.skipKeyword('DISTINCT');
    const projections: Projection[] = [];
    do projections.push(this.parseProjection());
    while (this.skipPunct(','));
    this.expectKeyword('FROM');
    const { collection, alias } = this.parseCollectionRef(NO_WORDS);
    const where = this.parseWhere();
    const groupBy: Expr[] = [];
    if (this.skipKeyword('GROUP')) {
      this.expectKeyword('BY');
      do groupBy.push(this.parseExpression());
      while (this.skipPunct(','));
    }
    const orderBy = this.parseOrderBy();
    const limit = this.parseLimit('LIMIT');
    const offset = this.parseLimit('OFFSET');
    return { kind: 'select', distinct, projections, collection, alias, where, groupBy, orderBy, limit, offset, pos };
  }

  // Projection : "*" | Expression (AS Name)?
  parseProjection(): Projection {
    const { pos } = this.token;
    if (this.skipPunct('*')) return { kind: 'star', pos };
    const expr = this.parseExpression();
    const alias = this.skipKeyword('AS') ? this.parseName('an alias') : undefined;
    return { kind: 'expr', expr, alias, pos };
  }

  // CollectionRef : CollectionName (AS? Name)?
  // A bare alias is any name but the contextual keywords in `clauses`, which may follow here.
  parseCollectionRef(clauses: ReadonlySet<string>): CollectionRef {
    const collection = this.parseCollectionName(clauses);
    let alias: string | undefined;
    if (this.skipKeyword('AS')) alias = this.parseName('an alias');
    else if (this.isName() && !clauses.has(this.token.keyword)) alias = this.lexer.advance().value;
    return { collection, alias };
  }

  // CollectionName : COLLECTION? Name | SystemName
  // SystemName : system:Name (no space around the colon), a collection the peer describes itself
  // `COLLECTION` not followed by a name (other than a keyword in `clauses`) is itself the name.
  parseCollectionName(clauses: ReadonlySet<string>): string {
    if (!this.isKeyword('COLLECTION')) {
      if (!this.isName()) throw this.unexpected('a collection name');
      return this.parseSystemName(this.lexer.advance());
    }
    const word = this.lexer.advance();
    return this.isName() && !clauses.has(this.token.keyword) ? this.parseSystemName(this.lexer.advance()) : word.value;
  }

  /** The name of a collection token just read: `system` with a parameter-like `:name` right after it is `system:name`. */
  parseSystemName(name: Token): string {
    const next = this.token;
    if (name.kind !== TokenKind.NAME || name.value !== 'system' || next.kind !== TokenKind.PARAM || next.pos.offset !== name.pos.offset + name.text.length) {
      return name.value;
    }
    this.lexer.advance();
    return `system:${next.value}`;
  }

  // Where : WHERE Expression
  parseWhere(): Expr | undefined {
    return this.skipKeyword('WHERE') ? this.parseExpression() : undefined;
  }

  // OrderBy : ORDER BY Expression (ASC | DESC)? ("," Expression (ASC | DESC)?)*
  parseOrderBy(): OrderTerm[] {
    const terms: OrderTerm[] = [];
    if (!this.skipKeyword('ORDER')) return terms;
    this.expectKeyword('BY');
    do {
      const expr = this.parseExpression();
      if (this.skipKeyword('DESC')) terms.push({ expr, direction: 'DESC' });
      else {
        this.skipKeyword('ASC');
        terms.push({ expr, direction: 'ASC' });
      }
    } while (this.skipPunct(','));
    return terms;
  }

  // Limit : LIMIT Expression      Offset : OFFSET Expression
  parseLimit(word: 'LIMIT' | 'OFFSET'): Expr | undefined {
    return this.skipKeyword(word) ? this.parseExpression() : undefined;
  }

  // Insert : INSERT INTO CollectionName (DOCUMENTS | VALUES) "(" Expression ")" ("," "(" Expression ")")* OnConflict?
  parseInsert(): InsertStatement {
    const { pos } = this.expectKeyword('INSERT');
    this.expectKeyword('INTO');
    const collection = this.parseCollectionName(INSERT_KINDS);
    if (!INSERT_KINDS.has(this.token.keyword)) throw this.unexpected('DOCUMENTS or VALUES');
    this.lexer.advance();
    const documents: Expr[] = [];
    do {
      this.expectPunct('(');
      documents.push(this.parseExpression());
      this.expectPunct(')');
    } while (this.skipPunct(','));
    const onConflict = this.parseOnConflict();
    return { kind: 'insert', collection, documents, onConflict, pos };
  }

  // OnConflict : ON ID CONFLICT (FAIL | DO (NOTHING | UPDATE | UPDATE_LOCAL_DIFF | MERGE))
  parseOnConflict(): ConflictPolicy {
    if (!this.skipKeyword('ON')) return 'FAIL';
    this.expectKeyword('ID');
    this.expectKeyword('CONFLICT');
    if (this.skipKeyword('FAIL')) return 'FAIL';
    if (!this.skipKeyword('DO')) throw this.unexpected('FAIL or DO');
    const action = this.token.keyword;
    if (action !== 'NOTHING' && action !== 'UPDATE' && action !== 'UPDATE_LOCAL_DIFF' && action !== 'MERGE') {
      throw this.unexpected('NOTHING, UPDATE, UPDATE_LOCAL_DIFF or MERGE');
    }
    this.lexer.advance();
    return `DO ${action}`;
  }

  // Update : UPDATE CollectionRef UpdateClause+ Where?
  // UpdateClause : SET Path "=" Expression ("," Path "=" Expression)*
  //              | UNSET Path ("," Path)*
  //              | APPLY Path PN_INCREMENT BY Expression ("," Path PN_INCREMENT BY Expression)*
  parseUpdate(): UpdateStatement {
    const { pos } = this.expectKeyword('UPDATE');
    const { collection, alias } = this.parseCollectionRef(UPDATE_CLAUSES);
    const set: SetClause[] = [];
    const unset: UpdateStatement['unset'][number][] = [];
    const increments: IncrementClause[] = [];
    if (!UPDATE_CLAUSES.has(this.token.keyword)) throw this.unexpected('SET, UNSET or APPLY');
    while (UPDATE_CLAUSES.has(this.token.keyword)) {
      const clause = this.lexer.advance().keyword;
      do {
        const path = this.parsePath();
        if (clause === 'SET') {
          this.expectPunct('=');
          set.push({ path: path.segments, value: this.parseExpression(), pos: path.pos });
        } else if (clause === 'UNSET') unset.push({ path: path.segments, pos: path.pos });
        else {
          this.expectKeyword('PN_INCREMENT');
          this.expectKeyword('BY');
          increments.push({ path: path.segments, by: this.parseExpression(), pos: path.pos });
        }
      } while (this.skipPunct(','));
    }
    const where = this.parseWhere();
    return { kind: 'update', collection, alias, set, unset, increments, where, pos };
  }

  // Delete : DELETE FROM CollectionRef Where?
  parseDelete(): DeleteStatement {
    const { pos } = this.expectKeyword('DELETE');
    this.expectKeyword('FROM');
    const { collection, alias } = this.parseCollectionRef(NO_WORDS);
    return { kind: 'delete', collection, alias, where: this.parseWhere(), pos };
  }

  // Evict : EVICT FROM CollectionRef Where? OrderBy? Limit? Offset?
  parseEvict(): EvictStatement {
    const { pos } = this.expectKeyword('EVICT');
    this.expectKeyword('FROM');
    const { collection, alias } = this.parseCollectionRef(NO_WORDS);
    const where = this.parseWhere();
    const orderBy = this.parseOrderBy();
    const limit = this.parseLimit('LIMIT');
    const offset = this.parseLimit('OFFSET');
    return { kind: 'evict', collection, alias, where, orderBy, limit, offset, pos };
  }
}

/** Removes the collection alias from the front of every path of more than one segment. */
function withoutAlias(statement: Statement): Statement {
  if (statement.kind === 'insert' || statement.alias === undefined) return statement;
  const alias = statement.alias;
  const path = (segments: readonly PathSegment[]): readonly PathSegment[] => (segments.length > 1 && segments[0] === alias ? segments.slice(1) : segments);
  const expr = (e: Expr): Expr => stripExpr(e, path);
  const optional = (e: Expr | undefined): Expr | undefined => (e === undefined ? undefined : expr(e));
  const order = (terms: readonly OrderTerm[]): OrderTerm[] => terms.map((t) => ({ ...t, expr: expr(t.expr) }));
  switch (statement.kind) {
    case 'select':
      return {
        ...statement,
        projections: statement.projections.map((p) => (p.kind === 'star' ? p : { ...p, expr: expr(p.expr) })),
        where: optional(statement.where),
        groupBy: statement.groupBy.map(expr),
        orderBy: order(statement.orderBy),
        limit: optional(statement.limit),
        offset: optional(statement.offset),
      };
    case 'update':
      return {
        ...statement,
        set: statement.set.map((c) => ({ ...c, path: path(c.path), value: expr(c.value) })),
        unset: statement.unset.map((c) => ({ ...c, path: path(c.path) })),
        increments: statement.increments.map((c) => ({ ...c, path: path(c.path), by: expr(c.by) })),
        where: optional(statement.where),
      };
    case 'delete':
      return { ...statement, where: optional(statement.where) };
    case 'evict':
      return {
        ...statement,
        where: optional(statement.where),
        orderBy: order(statement.orderBy),
        limit: optional(statement.limit),
        offset: optional(statement.offset),
      };
  }
}

/** Rebuilds `e` with every path's segments passed through `path`; the tree's height is bounded by the parser. */
function stripExpr(e: Expr, path: (segments: readonly PathSegment[]) => readonly PathSegment[]): Expr {
  const go = (child: Expr): Expr => stripExpr(child, path);
  switch (e.kind) {
    case 'literal':
    case 'param':
      return e;
    case 'path':
      return { ...e, segments: path(e.segments) };
    case 'array':
      return { ...e, items: e.items.map(go) };
    case 'object':
      return { ...e, entries: e.entries.map((entry) => ({ key: entry.key, value: go(entry.value) })) };
    case 'unary':
      return { ...e, operand: go(e.operand) };
    case 'binary':
      return { ...e, left: go(e.left), right: go(e.right) };
    case 'in':
      return { ...e, needle: go(e.needle), haystack: go(e.haystack) };
    case 'like':
      return { ...e, value: go(e.value), pattern: go(e.pattern) };
    case 'between':
      return { ...e, value: go(e.value), low: go(e.low), high: go(e.high) };
    case 'is':
      return { ...e, value: go(e.value) };
    case 'call':
      return { ...e, args: e.args.map(go) };
  }
}
