/**
 * The store's transactions on both storages: the one write slot, atomic multi-statement
 * transactions, reads that never wait, and the commit log lines in the spec's exact text.
 */
import { describe, expect, it } from 'vitest';
import { Budget } from '../budget.ts';
import { LogHub } from '../log/log-hub.ts';
import { STORAGES, failureOf, freshPeer } from '../../testing/dql-test-peers.ts';
import { ManualTimers } from '../time.ts';

/** A promise and the function that settles it: a transaction that waits until told to finish. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe.each(STORAGES)('transactions on %s storage', (_kind, openStorage) => {
  const { peer, open } = freshPeer(openStorage);

  function loggedPeer() {
    const timers = new ManualTimers();
    const hub = new LogHub({ now: () => timers.now(), minimumLogLevel: 'DEBUG' });
    const sync = open({ timers, logHub: hub });
    const lines = () => hub.recentEntries().map((e) => `[${e.level}] ${e.timestamp}: ${e.message}`);
    return { sync, timers, hub, lines };
  }

  it('rolls back a transaction whose budget is spent by the time it would commit, with query/timeout', async () => {
    let now = 0;
    const budget = new Budget(1_000, 'the request', () => now);
    const failure = await failureOf(
      peer().store.transaction(
        async (tx) => {
          await tx.execute("INSERT INTO t DOCUMENTS ({_id: 'a'})");
          now = 1_000;
        },
        { budget },
      ),
    );
    expect(failure).toMatchObject({ code: 'query/timeout', message: 'the request ran longer than its budget of 1000 ms and was stopped' });
    expect(peer().store.lastTxnId).toBe(0);
    expect((await peer().store.execute('SELECT * FROM t')).items).toEqual([]);
  });

  it('refuses the next statement of a transaction whose budget is spent', async () => {
    const budget = new Budget(1_000);
    budget.expire();
    const failure = await failureOf(peer().store.transaction(async (tx) => tx.execute('SELECT * FROM t'), { isReadOnly: true, budget }));
    expect(failure).toMatchObject({ code: 'query/timeout' });
  });

  it('commits several statements as one transaction with one txn id', async () => {
    const result = await peer().store.transaction(async (tx) => {
      const a = await tx.execute("INSERT INTO t DOCUMENTS ({_id: 'a', n: 1})");
      const b = await tx.execute("UPDATE t SET n = n + 1 WHERE _id = 'a'");
      const seen = await tx.execute('SELECT n FROM t');
      return [a.commitId, b.commitId, seen.items];
    });
    expect(result).toEqual([1, 1, [{ n: 2 }]]);
    expect(peer().store.lastTxnId).toBe(1);
    expect((await peer().store.execute('SELECT * FROM t')).items).toEqual([{ _id: 'a', n: 2 }]);
  });

  it('rolls back everything and rethrows when the function throws', async () => {
    const boom = new Error('boom');
    await expect(
      peer().store.transaction(async (tx) => {
        await tx.execute("INSERT INTO t DOCUMENTS ({_id: 'a'})");
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect((await peer().store.execute('SELECT * FROM t')).items).toEqual([]);
    expect(peer().store.lastTxnId).toBe(0);
    expect((await peer().store.execute("INSERT INTO t DOCUMENTS ({_id: 'b'})")).commitId).toBe(1);
  });

  it("rolls back when the function returns 'rollback', and resolves to 'rollback'", async () => {
    const out = await peer().store.transaction(async (tx) => {
      await tx.execute("INSERT INTO t DOCUMENTS ({_id: 'a'})");
      return 'rollback' as const;
    });
    expect(out).toBe('rollback');
    expect((await peer().store.execute('SELECT * FROM t')).items).toEqual([]);
  });

  it('rolls back a transaction whose statement fails, leaving nothing half-written', async () => {
    await peer().store.execute("INSERT INTO t DOCUMENTS ({_id: 'taken'})");
    const error = await failureOf(
      peer().store.transaction(async (tx) => {
        await tx.execute("INSERT INTO t DOCUMENTS ({_id: 'new'})");
        await tx.execute("INSERT INTO t DOCUMENTS ({_id: 'taken'})");
      }),
    );
    expect(error.code).toBe('query/evaluation');
    expect((await peer().store.execute('SELECT _id FROM t')).items).toEqual([{ _id: 'taken' }]);
  });

  it('refuses a mutation in a read-only transaction with query/unsupported, and reads one snapshot', async () => {
    await peer().store.execute("INSERT INTO t DOCUMENTS ({_id: 'a'})");
    await peer().store.transaction(
      async (tx) => {
        expect((await failureOf(tx.execute("INSERT INTO t DOCUMENTS ({_id: 'b'})"))).code).toBe('query/unsupported');
        await peer().store.execute("INSERT INTO t DOCUMENTS ({_id: 'c'})");
        expect((await tx.execute('SELECT _id FROM t')).items).toEqual([{ _id: 'a' }]);
      },
      { isReadOnly: true },
    );
    expect((await peer().store.execute('SELECT _id FROM t')).items).toEqual([{ _id: 'a' }, { _id: 'c' }]);
  });

  it('refuses to run a statement on a transaction that is over', async () => {
    const kept = await peer().store.transaction((tx) => tx);
    expect((await failureOf(kept.execute('SELECT * FROM t'))).code).toBe('query/unsupported');
  });

  it('refuses, rather than deadlocks, a plain write inside a write transaction', async () => {
    const error = await failureOf(
      peer().store.transaction(async () => {
        await peer().store.execute("INSERT INTO t DOCUMENTS ({_id: 'x'})");
      }),
    );
    expect(error.code).toBe('query/unsupported');
    expect(error.message).toContain('use the transaction');
  });

  it('runs writes one at a time in submission order, none failing for being blocked', async () => {
    const long = gate();
    const order: string[] = [];
    const holder = peer().store.transaction(async (tx) => {
      await tx.execute("INSERT INTO t DOCUMENTS ({_id: 'first'})");
      order.push('first');
      await long.wait;
    });
    const writers = ['w1', 'w2', 'w3'].map((id) =>
      peer()
        .store.execute('INSERT INTO t DOCUMENTS ({_id: :id})', { id })
        .then((r) => order.push(`${id}:${r.commitId}`)),
    );
    await flush();
    expect(peer().store.writeSlot).toMatchObject({ holder: { txnId: 1, originator: 'User' }, waiting: 3 });
    long.open();
    await Promise.all([holder, ...writers]);
    expect(order).toEqual(['first', 'w1:2', 'w2:3', 'w3:4']);
  });

  it('serves reads at once, with committed data only, while a long write holds the slot', async () => {
    await peer().store.execute("INSERT INTO t DOCUMENTS ({_id: 'before'})");
    const long = gate();
    const holder = peer().store.transaction(async (tx) => {
      await tx.execute("INSERT INTO t DOCUMENTS ({_id: 'uncommitted'})");
      await long.wait;
    });
    await flush();
    for (let i = 0; i < 20; i++) expect((await peer().store.execute('SELECT _id FROM t')).items).toEqual([{ _id: 'before' }]);
    const readOnly = await peer().store.transaction(async (tx) => (await tx.execute('SELECT COUNT(*) AS n FROM t')).items, { isReadOnly: true });
    expect(readOnly).toEqual([{ n: 1 }]);
    long.open();
    await holder;
    expect((await peer().store.execute('SELECT _id FROM t')).items).toEqual([{ _id: 'before' }, { _id: 'uncommitted' }]);
  });

  it('logs each commit, then the change notification, in the spec’s exact text', async () => {
    const { sync, lines, timers } = loggedPeer();
    await sync.store.execute("INSERT INTO t DOCUMENTS ({_id: 'a'})");
    timers.advance(5);
    await sync.store.transaction((tx) => tx.execute("UPDATE t SET x = 1 WHERE _id = 'a'"), { hint: 'edit' });
    expect(lines().filter((l) => /Write txn|Notifying/.test(l))).toEqual([
      '[DEBUG] 2026-11-21T12:00:00.000Z: Write txn committed; txn_id = 1; originator = User',
      '[DEBUG] 2026-11-21T12:00:00.000Z: Notifying a database change; transaction = 1',
      '[DEBUG] 2026-11-21T12:00:00.005Z: Write txn committed; txn_id = 2; originator = User',
      '[DEBUG] 2026-11-21T12:00:00.005Z: Notifying a database change; transaction = 2',
    ]);
  });

  it('commits internal and replication writes under their own originator', async () => {
    const { sync, hub } = loggedPeer();
    await sync.store.internalWrites.write('Internal', 'presence', () => undefined);
    await sync.store.internalWrites.write('Replication', undefined, () => undefined);
    expect(
      hub
        .recentEntries()
        .filter((e) => e.event === 'txn.committed')
        .map((e) => e.fields),
    ).toEqual([
      { txn_id: 1, originator: 'Internal' },
      { txn_id: 2, originator: 'Replication' },
    ]);
  });

  it('tells listeners about every commit and every blocked wait', async () => {
    const { sync, timers } = loggedPeer();
    const commits: unknown[] = [];
    const waits: unknown[] = [];
    sync.store.onCommit((c) => commits.push({ txnId: c.txnId, originator: c.originator, hint: c.hint, collections: c.collections }));
    sync.store.onBlockedWait((w) => waits.push(w));
    const long = gate();
    const holder = sync.store.transaction(
      async (tx) => {
        await tx.execute('INSERT INTO a DOCUMENTS ({_id: 1})');
        await long.wait;
      },
      { hint: 'slow' },
    );
    const blocked = sync.store.execute('INSERT INTO b DOCUMENTS ({_id: 2})');
    await flush();
    timers.advance(35_000);
    long.open();
    await Promise.all([holder, blocked]);
    expect(commits).toEqual([
      { txnId: 1, originator: 'User', hint: 'slow', collections: ['a'] },
      { txnId: 2, originator: 'User', hint: undefined, collections: ['b'] },
    ]);
    expect(waits).toEqual([
      { originator: 'User', hint: undefined, waitedMs: 35_000, blockedBy: 'User', blockingTxnId: 1, blockingHint: 'slow', lastLogLevel: 'DEBUG' },
    ]);
  });
});
