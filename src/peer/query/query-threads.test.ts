/**
 * Query threads over a SQLite store (real worker threads): SELECTs and the search of a mutation
 * answered off the event loop, on a snapshot that holds every commit made before; a job stopped
 * at its budget; a job whose budget is spent while it waits never runs; a thread stuck past its
 * job's deadline terminated and replaced; close.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../shared/log.ts';
import { Budget } from '../budget.ts';
import { LogHub } from '../log/log-hub.ts';
import { failureOf } from '../../testing/dql-test-peers.ts';
import { Sync } from '../../testing/sync-fixtures.ts';
import { QueryThreads, QueryThreadsUnavailable } from './query-threads.ts';

/** 499 comparisons of a 200-object array, each a call into the evaluator: about 50 ms a document in SQLite. */
const COSTLY = Array.from({ length: 499 }, (_, i) => `items = [${i}]`).join(' OR ');
const costly = (count: number): object[] =>
  Array.from({ length: count }, (_, i) => ({ _id: `c${i}`, items: Array.from({ length: 200 }, (_, j) => ({ k: j, v: `v${j}` })) }));

describe('query threads over a SQLite store', () => {
  let dir: string;
  let sync: Sync;
  let logs: LogEntry[];
  let hub: LogHub;
  let threads: QueryThreads[];
  const open = (options: { threads: number }): QueryThreads => {
    const opened = sync.openQueryThreads({ threads: options.threads });
    if (opened === undefined) throw new Error('no query threads on a SQLite store');
    threads.push(opened);
    return opened;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'query-threads-'));
    hub = new LogHub({ minimumLogLevel: 'DEBUG' });
    logs = [];
    hub.setCustomLogCallback((entry) => logs.push(entry));
    sync = new Sync({ persistenceDirectory: dir, logHub: hub });
    threads = [];
  });
  afterEach(async () => {
    for (const t of threads) await t.close();
    sync.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('are not offered for a store in memory', () => {
    const memory = new Sync({ inMemory: true, logHub: new LogHub() });
    try {
      expect(memory.openQueryThreads({ threads: 2 })).toBeUndefined();
    } finally {
      memory.close();
    }
  });

  it('answer a SELECT as JSON text from a snapshot holding the last commit', async () => {
    const queries = open({ threads: 2 });
    await queries.warm();
    const { commitId } = await sync.store.execute("INSERT INTO t DOCUMENTS ({_id: 'a', n: 1}), ({_id: 'b', n: 2})");
    const answer = await queries.select('SELECT n FROM t WHERE n > :min ORDER BY n DESC', { min: 0 }, new Budget(10_000), sync.store.lastTxnId);
    expect(answer).toEqual({ itemsJson: '[{"n":2},{"n":1}]', snapshotTxnId: commitId });
  });

  it('find the documents a mutation selects without writing', async () => {
    const queries = open({ threads: 1 });
    await sync.store.execute("INSERT INTO t DOCUMENTS ({_id: 'a', n: 1}), ({_id: 'b', n: 2}), ({_id: 'c', n: 3})");
    const before = sync.store.lastTxnId;
    expect(await queries.findTargets('UPDATE t SET x = 1 WHERE n >= 2', undefined, new Budget(10_000), before)).toEqual({
      ids: ['b', 'c'],
      snapshotTxnId: before,
    });
    expect(await queries.findTargets('EVICT FROM t WHERE n >= 1 ORDER BY n DESC LIMIT 1', undefined, new Budget(10_000), before)).toEqual({
      ids: ['c'],
      snapshotTxnId: before,
    });
    expect(sync.store.lastTxnId).toBe(before);
  });

  it('answer the errors of the statement with their codes', async () => {
    const queries = open({ threads: 1 });
    expect(await failureOf(queries.select('SELECT * FROM', undefined, new Budget(10_000), 0))).toMatchObject({ code: 'query/invalid' });
    expect(await failureOf(queries.select('SELECT * FROM t WHERE a = :a', undefined, new Budget(10_000), 0))).toMatchObject({ code: 'query/invalid' });
  });

  it('stop a job at its budget with query/timeout, and run the next one on the same thread', async () => {
    const queries = open({ threads: 1 });
    await sync.store.execute('INSERT INTO t DOCUMENTS (:docs)', { docs: costly(100) });
    await queries.warm();
    const started = performance.now();
    const error = await failureOf(queries.select(`SELECT _id FROM t WHERE ${COSTLY}`, undefined, new Budget(200), 0));
    expect(error).toMatchObject({ code: 'query/timeout', message: 'the statement ran longer than its budget of 200 ms and was stopped' });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect((await queries.select('SELECT COUNT(*) AS n FROM t', undefined, new Budget(10_000), 0)).itemsJson).toBe('[{"n":100}]');
    expect(queries.threads).toBe(1);
    expect(logs.filter((e) => e.event === 'query-threads.thread-terminated')).toEqual([]);
  });

  it('never run a job whose budget is spent while it waits for a thread', async () => {
    const queries = open({ threads: 1 });
    await sync.store.execute('INSERT INTO t DOCUMENTS (:docs)', { docs: costly(20) });
    const first = queries.select(`SELECT _id FROM t WHERE ${COSTLY}`, undefined, new Budget(10_000), 0);
    const second = queries.select('SELECT COUNT(*) AS n FROM t', undefined, new Budget(20), 0);
    expect(queries.waiting).toBe(1);
    expect(await failureOf(second)).toMatchObject({ code: 'query/timeout', message: 'the statement ran longer than its budget of 20 ms and was stopped' });
    expect((await first).itemsJson).toBe('[]');
  });

  it('terminate and replace a thread that does not answer in time after its deadline', async () => {
    // One document: the thread checks the budget before it, then spends about 50 ms inside it.
    const queries = new QueryThreads({ directory: dir, threads: 1, logger: hub.logger('store'), graceMs: 1 });
    threads.push(queries);
    await sync.store.execute('INSERT INTO t DOCUMENTS (:docs)', { docs: costly(1) });
    await queries.warm();
    const error = await failureOf(queries.select(`SELECT _id FROM t WHERE ${COSTLY}`, undefined, new Budget(5), 0));
    expect(error).toMatchObject({ code: 'query/timeout' });
    expect(logs.filter((e) => e.event === 'query-threads.thread-terminated')).toHaveLength(1);
    expect((await queries.select('SELECT COUNT(*) AS n FROM t', undefined, new Budget(10_000), 0)).itemsJson).toBe('[{"n":1}]');
    expect(queries.threads).toBe(1);
  });

  it('tell that they cannot start where the code of the thread is missing (a bundle), once, so that statements run elsewhere', async () => {
    const queries = new QueryThreads({
      directory: dir,
      threads: 2,
      logger: hub.logger('store'),
      threadUrl: new URL('./no-such-query-thread.ts', import.meta.url),
    });
    threads.push(queries);
    await queries.warm();
    for (let i = 0; i < 3; i++) {
      expect(await failureOf(queries.select('SELECT * FROM t', undefined, new Budget(10_000), 0))).toBeInstanceOf(QueryThreadsUnavailable);
    }
    expect(logs.filter((e) => e.event === 'query-threads.unavailable')).toHaveLength(1);
  });

  it('fail the jobs still waiting with store/closed when closed', async () => {
    const queries = open({ threads: 1 });
    await sync.store.execute('INSERT INTO t DOCUMENTS (:docs)', { docs: costly(20) });
    const running = failureOf(queries.select(`SELECT _id FROM t WHERE ${COSTLY}`, undefined, new Budget(10_000), 0));
    const waiting = failureOf(queries.select('SELECT * FROM t', undefined, new Budget(10_000), 0));
    await queries.close();
    expect(await running).toMatchObject({ code: 'store/closed' });
    expect(await waiting).toMatchObject({ code: 'store/closed' });
    expect(await failureOf(queries.select('SELECT * FROM t', undefined, new Budget(10_000), 0))).toMatchObject({ code: 'store/closed' });
  });
});
