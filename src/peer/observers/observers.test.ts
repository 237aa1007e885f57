/**
 * Live queries on both storages: first result at once, then one call per change of the result,
 * with what changed; no call for commits elsewhere; cancellation; the signal-next variant.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../shared/json.ts';
import { LogHub } from '../log/log-hub.ts';
import { STORAGES, failureOf, freshPeer } from '../../testing/dql-test-peers.ts';
import type { ObserverEvent } from './observer-registry.ts';
import { seededRandom } from '../../testing/seeded-random.ts';

/** Lets pending observer runs (scheduled with setImmediate) happen. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
};

function recorder() {
  const events: ObserverEvent[] = [];
  return { events, handler: (e: ObserverEvent) => events.push(e) };
}

describe.each(STORAGES)('observers on %s storage', (_kind, openStorage) => {
  const { peer, open } = freshPeer(openStorage);
  const run = (statement: string, args?: Record<string, unknown>) => peer().store.execute(statement, args);

  it('fires once with the current result, marked as the initial one', async () => {
    await run("INSERT INTO cars DOCUMENTS ({_id: 'a', color: 'red'}), ({_id: 'b', color: 'blue'})");
    const { events, handler } = recorder();
    peer().store.registerObserver("SELECT * FROM cars WHERE color = 'red'", handler);
    await settle();
    expect(events).toEqual([{ items: [{ _id: 'a', color: 'red' }], inserted: ['a'], deleted: [], updated: [], isInitial: true, txnId: 1 }]);
  });

  it('fires after each commit that changes its result, naming what was inserted, updated and deleted', async () => {
    await run("INSERT INTO cars DOCUMENTS ({_id: 'a', color: 'red'}), ({_id: 'b', color: 'red'})");
    const { events, handler } = recorder();
    peer().store.registerObserver('SELECT * FROM cars WHERE color = :c', handler, { c: 'red' });
    await settle();
    await run("INSERT INTO cars DOCUMENTS ({_id: 'c', color: 'red'})");
    await settle();
    await run("UPDATE cars SET km = 5 WHERE _id = 'a'");
    await settle();
    await run("UPDATE cars SET color = 'blue' WHERE _id = 'b'");
    await settle();
    await run("DELETE FROM cars WHERE _id = 'c'");
    await settle();
    expect(events.slice(1).map(({ inserted, updated, deleted, txnId }) => ({ inserted, updated, deleted, txnId }))).toEqual([
      { inserted: ['c'], updated: [], deleted: [], txnId: 2 },
      { inserted: [], updated: ['a'], deleted: [], txnId: 3 },
      { inserted: [], updated: [], deleted: ['b'], txnId: 4 },
      { inserted: [], updated: [], deleted: ['c'], txnId: 5 },
    ]);
    expect(events.at(-1)?.items).toEqual([{ _id: 'a', color: 'red', km: 5 }]);
  });

  it('does not fire for a commit to another collection, nor for one that leaves its result as it was', async () => {
    const { events, handler } = recorder();
    peer().store.registerObserver("SELECT * FROM cars WHERE color = 'red'", handler);
    await settle();
    await run("INSERT INTO boats DOCUMENTS ({_id: 'x', color: 'red'})");
    await run("INSERT INTO cars DOCUMENTS ({_id: 'y', color: 'green'})");
    await settle();
    expect(events).toHaveLength(1);
  });

  it('sees several quick commits as one change', async () => {
    const { events, handler } = recorder();
    peer().store.registerObserver('SELECT COUNT(*) AS n FROM cars', handler);
    await settle();
    for (let i = 0; i < 5; i++) await run('INSERT INTO cars DOCUMENTS ({n: :i})', { i });
    await settle();
    expect(events.map((e) => e.items)).toEqual([[{ n: 0 }], [{ n: 5 }]]);
    expect(events[1]?.inserted).toEqual([]); // rows without _id are compared whole
  });

  it('stops firing once cancelled and leaves the list of live observers', async () => {
    const { events, handler } = recorder();
    const observer = peer().store.registerObserver('SELECT * FROM cars', handler);
    const other = peer().store.registerObserver('SELECT * FROM boats', () => {});
    expect(peer().store.observers.map((o) => o.id)).toEqual([observer.id, other.id]);
    await settle();
    observer.cancel();
    observer.cancel();
    expect(observer.isCancelled).toBe(true);
    expect(peer().store.observers.map((o) => o.id)).toEqual([other.id]);
    await run("INSERT INTO cars DOCUMENTS ({_id: 'a'})");
    await settle();
    expect(events).toHaveLength(1);
  });

  it('calls a signal-next observer again only after it signals, with the latest result', async () => {
    const events: ObserverEvent[] = [];
    let signal: (() => void) | undefined;
    peer().store.registerObserverWithSignalNext('SELECT _id FROM cars', (event, signalNext) => {
      events.push(event);
      signal = signalNext;
    });
    await settle();
    await run("INSERT INTO cars DOCUMENTS ({_id: 'a'})");
    await settle();
    await run("INSERT INTO cars DOCUMENTS ({_id: 'b'})");
    await settle();
    expect(events).toHaveLength(1);
    signal?.();
    await settle();
    expect(events.map((e) => e.items)).toEqual([[], [{ _id: 'a' }, { _id: 'b' }]]);
    expect(events[1]?.inserted).toEqual(['a', 'b']);
  });

  it('refuses a statement other than SELECT with query/unsupported', async () => {
    const error = await failureOf(() => peer().store.registerObserver("DELETE FROM cars WHERE _id = 'a'", () => {}));
    expect(error.code).toBe('query/unsupported');
    expect((await failureOf(() => peer().store.registerObserver('SELEC', () => {}))).code).toBe('query/invalid');
  });

  it('keeps an observer whose handler throws, and logs the failure', async () => {
    const hub = new LogHub({ minimumLogLevel: 'WARN' });
    const sync = open({ logHub: hub });
    let calls = 0;
    sync.store.registerObserver('SELECT * FROM cars', () => {
      calls++;
      throw new Error('handler broke');
    });
    await settle();
    await sync.store.execute("INSERT INTO cars DOCUMENTS ({_id: 'a'})");
    await settle();
    expect(calls).toBe(2);
    expect(hub.recentEntries().map((e) => e.message)).toEqual([
      'Observer failed; id = 1; error = handler broke',
      'Observer failed; id = 1; error = handler broke',
    ]);
  });

  it('works through the older form: find(query).observeLocal, stopped with stop()', async () => {
    const seen: JsonObject[][] = [];
    const live = peer()
      .store.collection('cars')
      .find('km > :min', { min: 10 })
      .observeLocal((docs) => seen.push(docs));
    await settle();
    await run("INSERT INTO cars DOCUMENTS ({_id: 'a', km: 20}), ({_id: 'b', km: 5})");
    await settle();
    live.stop();
    expect(live.isCancelled).toBe(true);
    await run("INSERT INTO cars DOCUMENTS ({_id: 'c', km: 50})");
    await settle();
    expect(seen).toEqual([[], [{ _id: 'a', km: 20 }]]);
  });

  it('cancels every observer when the peer closes', async () => {
    const sync = open();
    const observer = sync.store.registerObserver('SELECT * FROM cars', () => {});
    sync.close();
    expect(observer.isCancelled).toBe(true);
  });
});

describe.each(STORAGES)('observers under random writes on %s storage', (_kind, openStorage) => {
  const { peer } = freshPeer(openStorage);

  const STATEMENTS = [
    "SELECT * FROM cars WHERE color = 'red'",
    "SELECT * FROM cars WHERE color = 'red' ORDER BY km DESC LIMIT 3",
    'SELECT make FROM cars WHERE km > 50',
    "SELECT km AS k FROM cars WHERE color != 'blue' ORDER BY km LIMIT 2",
    'SELECT * FROM cars ORDER BY km LIMIT 2 OFFSET 1',
    'SELECT COUNT(*) AS n FROM cars WHERE km < 40',
    'SELECT color, COUNT(*) AS n FROM cars GROUP BY color',
    'SELECT DISTINCT color FROM cars',
    "SELECT _id FROM cars WHERE make LIKE 'V%'",
  ];

  it.each([1, 2, 3, 4, 5])('keeps every observer equal to a fresh run of its query (seed %i)', async (seed) => {
    const random = seededRandom(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const latest = new Map<string, JsonObject[]>();
    for (const statement of STATEMENTS) peer().store.registerObserver(statement, (e) => latest.set(statement, e.items));
    for (let step = 0; step < 40; step++) {
      const id = `c${Math.floor(random() * 8)}`;
      const doc = { _id: id, color: pick(['red', 'blue', 'green']), km: Math.floor(random() * 100), make: pick(['Volvo', 'Saab', 'VW']) };
      const statement = pick([
        ['INSERT INTO cars DOCUMENTS (:doc) ON ID CONFLICT DO UPDATE', { doc }],
        ['UPDATE cars SET km = :km WHERE _id = :id', { km: doc.km, id }],
        ["UPDATE cars SET color = 'red' WHERE km > :km", { km: doc.km }],
        ['DELETE FROM cars WHERE _id = :id', { id }],
        ['EVICT FROM cars WHERE _id = :id', { id }],
        ['INSERT INTO boats DOCUMENTS (:doc) ON ID CONFLICT DO UPDATE', { doc }],
      ] as const);
      await peer().store.execute(statement[0], statement[1]);
      if (random() < 0.5) continue; // let some commits pile up before observers run
      await settle();
      for (const s of STATEMENTS) expect(latest.get(s), `${s} after step ${step}`).toEqual((await peer().store.execute(s)).items);
    }
  });
});
