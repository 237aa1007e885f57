/**
 * Shared set-up of the DQL semantics suites: every suite runs once per storage (SQLite in a
 * temporary directory, and the in-memory twin), so that both must give exactly the same answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import type { JsonObject } from '../shared/json.ts';
import { SyncError } from '../peer/errors.ts';
import { LogHub } from '../peer/log/log-hub.ts';
import { Sync, type SyncOptions } from '../peer/sync/sync.ts';
import type { Expr, PathExpr } from '../peer/dql/ast.ts';
import { parseCommand } from '../peer/dql/parser.ts';
import { printPath } from '../peer/dql/print.ts';
import { visit } from '../peer/query/prepare.ts';
import { UnsupportedQueryError } from '../peer/errors.ts';

type Options = Omit<SyncOptions, 'persistenceDirectory' | 'inMemory'>;

function openSqlite(options?: Options): Sync {
  const dir = mkdtempSync(join(tmpdir(), 'dql-'));
  try {
    return new Sync({ logHub: new LogHub(), ...options, persistenceDirectory: dir });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true }); // e.g. on a Node the storage engine refuses
    throw error;
  }
}

/**
 * The `CREATE INDEX` statements that cover a statement: one index for each path its condition
 * and ORDER BY name, and one over its ORDER BY paths in order. None for a statement that does
 * not parse (it fails on its own).
 */
export function indexesFor(statement: string): string[] {
  let command;
  try {
    command = parseCommand(statement);
  } catch {
    return [];
  }
  if (command.kind !== 'select' && command.kind !== 'update' && command.kind !== 'delete' && command.kind !== 'evict') return [];
  if (command.collection.startsWith('system:')) return [];
  const exprs: Expr[] = [];
  if (command.where !== undefined) exprs.push(command.where);
  const orderBy = command.kind === 'select' || command.kind === 'evict' ? command.orderBy : [];
  exprs.push(...orderBy.map((o) => o.expr));
  const paths = new Map<string, PathExpr>();
  for (const e of exprs) visit(e, (x) => x.kind === 'path' && !(x.segments.length === 1 && x.segments[0] === '_id') && paths.set(printPath(x.segments), x));
  const on = `ON ${printPath([command.collection])}`;
  const out = [...paths.keys()].map((p) => `CREATE INDEX IF NOT EXISTS ${printPath([`by ${p}`])} ${on} (${p})`);
  const ordered = orderBy.filter((o) => o.expr.kind === 'path' && !(o.expr.segments.length === 1 && o.expr.segments[0] === '_id'));
  if (ordered.length > 0 && ordered.length === orderBy.length) {
    const keys = ordered.map((o) => `${printPath((o.expr as PathExpr).segments)} ${o.direction}`).join(', ');
    out.push(`CREATE INDEX IF NOT EXISTS ${printPath([`order ${keys}`])} ${on} (${keys})`);
  }
  return out;
}

/**
 * A SQLite peer whose `store.execute` first indexes every path the statement uses (`indexesFor`),
 * so that a suite run on it checks that indexes change no answer. A path no index can hold
 * (one with a quote in a key) is left unindexed.
 */
function openSqliteIndexed(options?: Options): Sync {
  const sync = openSqlite(options);
  const store = sync.store;
  const execute = store.execute.bind(store);
  const made = new Set<string>();
  store.execute = async (statement, args, executeOptions) => {
    for (const ddl of typeof statement === 'string' ? indexesFor(statement) : []) {
      if (made.has(ddl)) continue;
      made.add(ddl);
      try {
        await execute(ddl);
      } catch (error) {
        if (!(error instanceof UnsupportedQueryError)) throw error;
      }
    }
    return execute(statement, args, executeOptions);
  };
  return sync;
}

/** `[name, open]` for `describe.each`: each call of `open` gives a fresh, empty peer. */
export const STORAGES: [string, (options?: Options) => Sync][] = [
  ['sqlite', openSqlite],
  ['sqlite with indexes', openSqliteIndexed],
  ['memory', (options) => new Sync({ logHub: new LogHub(), ...options, inMemory: true })],
];

/**
 * Opens a fresh peer before each test and closes it (removing its directory) after; the getter
 * returned gives the current one. Further peers opened with `open` are cleaned up too.
 */
export function freshPeer(open: (options?: Options) => Sync): { peer: () => Sync; open: (options?: Options) => Sync } {
  let opened: Sync[] = [];
  let current: Sync | undefined;
  const openTracked = (options?: Options): Sync => {
    const sync = open(options);
    opened.push(sync);
    return sync;
  };
  beforeEach(() => {
    current = openTracked();
  });
  afterEach(() => {
    for (const sync of opened) {
      sync.close();
      if (sync.persistenceDirectory !== undefined) rmSync(sync.persistenceDirectory, { recursive: true, force: true });
    }
    opened = [];
    current = undefined;
  });
  return {
    peer: () => {
      if (current === undefined) throw new Error('no peer outside a test');
      return current;
    },
    open: openTracked,
  };
}

/** The error a promise (or a function) fails with; fails the test when it succeeds. */
export async function failureOf(work: Promise<unknown> | (() => unknown)): Promise<SyncError> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    expect(error).toBeInstanceOf(SyncError);
    return error as SyncError;
  }
  throw new Error('expected the statement to fail');
}

/** Inserts documents into a collection in one statement. */
export async function seed(sync: Sync, collection: string, docs: readonly JsonObject[]): Promise<void> {
  await sync.store.execute(`INSERT INTO ${collection} DOCUMENTS (:docs)`, { docs: [...docs] });
}
