import { afterEach, describe, expect, it } from 'vitest';
import { CallFailed, inspectorKit, turns, type InspectorKit } from '../../../testing/inspector/test-kit.ts';
import { serveCall } from '../serve-call.ts';
import { TIMELINE_CAPACITY } from './timeline.ts';

let kit: InspectorKit | undefined;
afterEach(() => {
  kit?.dispose();
  kit = undefined;
});

describe('transactions:list and the commit events', () => {
  it('lists each commit since the inspector started, and pushes transactions:committed and store:changed', async () => {
    kit = inspectorKit();
    const start = kit.clock.now();
    await kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a' }, b: { _id: 'b' } });
    await kit.sync.store.transaction(
      async (tx) => {
        await tx.execute('INSERT INTO people DOCUMENTS (:p)', { p: { _id: 'p' } });
        await tx.execute("UPDATE orders SET x = 1 WHERE _id = 'a'");
        await tx.execute("UPDATE orders SET x = 2 WHERE _id = 'a'");
      },
      { hint: 'batch' },
    );
    const list = await kit.call('transactions:list');
    expect(list.commits).toEqual([
      {
        txnId: 1,
        originator: 'User',
        hint: undefined,
        startedAt: start,
        durationMs: 0,
        collections: ['orders'],
        documents: 2,
        sampleIds: ['orders:"a"', 'orders:"b"'],
      },
      // A document written twice in one commit is named once.
      {
        txnId: 2,
        originator: 'User',
        hint: 'batch',
        startedAt: start,
        durationMs: 0,
        collections: ['people', 'orders'],
        documents: 2,
        sampleIds: ['people:"p"', 'orders:"a"'],
      },
    ]);
    expect(list.waits).toEqual([]);
    expect(kit.eventsOf('transactions:committed')).toEqual(list.commits);
    expect(kit.eventsOf('store:changed')).toEqual([
      { txnId: 1, collections: ['orders'] },
      { txnId: 2, collections: ['people', 'orders'] },
    ]);
  });

  it('names the first five documents of a large commit and counts them all', async () => {
    kit = inspectorKit();
    await kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:docs)', { docs: Array.from({ length: 12 }, (_, i) => ({ _id: `o${i}` })) });
    const [commit] = (await kit.call('transactions:list')).commits;
    expect(commit).toMatchObject({ documents: 12, sampleIds: ['orders:"o0"', 'orders:"o1"', 'orders:"o2"', 'orders:"o3"', 'orders:"o4"'] });
  });

  it(`keeps the last ${TIMELINE_CAPACITY} commits, oldest first`, async () => {
    kit = inspectorKit({ minimumLogLevel: 'INFO' });
    for (let i = 0; i < TIMELINE_CAPACITY + 5; i++) await kit.sync.store.execute('INSERT INTO t DOCUMENTS (:d)', { d: { _id: `d${i}` } });
    const { commits } = await kit.call('transactions:list');
    expect(commits).toHaveLength(TIMELINE_CAPACITY);
    expect(commits[0]?.txnId).toBe(6);
    expect(commits.at(-1)?.txnId).toBe(TIMELINE_CAPACITY + 5);
  });
});

describe('transactions:hold, the slot and blocked waits', () => {
  it('holds the slot, shows a blocked writer waiting with the level of its next line, then its wait with the level of its last', async () => {
    kit = inspectorKit();
    const held = await kit.call('transactions:hold', { ms: 60_000, hint: 'qa hold' });
    expect(held).toEqual({ txnId: 1 });
    expect(await kit.call('transactions:slot')).toEqual({
      holder: { txnId: 1, originator: 'User', hint: 'qa hold', heldMs: 0 },
      waiting: [],
      openReadTransactions: 0,
    });

    const write = kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a' } });
    kit.clock.advance(5_000);
    expect((await kit.call('transactions:slot')).waiting).toEqual([{ originator: 'User', hint: undefined, waitingMs: 5_000, logLevel: 'DEBUG' }]);
    kit.clock.advance(25_000);
    expect(await kit.call('transactions:slot')).toMatchObject({ holder: { heldMs: 30_000 }, waiting: [{ waitingMs: 30_000, logLevel: 'WARN' }] });
    kit.clock.advance(10_000);
    expect(
      kit.hub
        .recentEntries()
        .filter((e) => e.event === 'txn.blocked')
        .map((e) => e.level),
    ).toEqual(['DEBUG', 'DEBUG', 'DEBUG', 'WARN']);

    kit.clock.advance(20_000); // the hold ends at 60 s
    await write;
    const { waits, commits, slot } = await kit.call('transactions:list');
    expect(waits).toEqual([
      { originator: 'User', hint: undefined, waitedMs: 60_000, blockedBy: 'User', blockingTxnId: 1, endedAt: kit.clock.now(), logLevel: 'WARN' },
    ]);
    expect(kit.eventsOf('transactions:waited')).toEqual(waits);
    expect(commits.map((c) => [c.txnId, c.hint, c.documents, c.durationMs])).toEqual([
      [1, 'qa hold', 0, 60_000],
      [2, undefined, 1, 0],
    ]);
    expect(slot).toEqual({ holder: undefined, waiting: [], openReadTransactions: 0 });
  });

  it('tells a wait of less than 10 s that was never logged', async () => {
    kit = inspectorKit();
    await kit.call('transactions:hold', { ms: 3_000 });
    const write = kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a' } });
    kit.clock.advance(3_000);
    await write;
    expect((await kit.call('transactions:list')).waits).toEqual([expect.objectContaining({ waitedMs: 3_000, logLevel: null, blockedBy: 'User' })]);
    expect((await kit.call('transactions:list')).commits[0]?.hint).toBe('inspector hold');
  });

  it('answers a hold once the slot is held, not before: behind another session’s hold it waits its turn', async () => {
    kit = inspectorKit();
    await kit.call('transactions:hold', { ms: 1_000 });
    const other = kit.inspector.openSession();
    let second: unknown;
    void serveCall(other.handlers, 'transactions:hold', { ms: 1_000 }).then((r) => (second = r.ok ? r.value : r.error));
    await turns();
    expect(second).toBeUndefined();
    expect((await kit.call('transactions:slot')).waiting).toHaveLength(1);
    kit.clock.advance(1_000);
    await turns();
    expect(second).toEqual({ txnId: 2 });
    kit.clock.advance(1_000);
    await turns();
    expect(kit.clock.pending).toBe(0);
  });

  it('ends every hold when the inspector closes, leaving no timer', async () => {
    kit = inspectorKit();
    await kit.call('transactions:hold', { ms: 600_000 });
    const write = kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a' } });
    kit.inspector.close();
    await write;
    expect(kit.sync.store.writeSlot.holder).toBeUndefined();
    expect(kit.clock.pending).toBe(0);
  });

  it('ends a session’s hold, running or still queued, when that session closes, so the app’s write waits no longer', async () => {
    kit = inspectorKit();
    const tab = kit.inspector.openSession();
    const other = kit.inspector.openSession();
    expect(await serveCall(tab.handlers, 'transactions:hold', { ms: 600_000 })).toEqual({ ok: true, value: { txnId: 1 } });
    const queued = serveCall(other.handlers, 'transactions:hold', { ms: 600_000 });
    await turns();
    const write = kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'app' } });
    other.close();
    tab.close();
    await write;
    expect(await queued).toMatchObject({ ok: false, error: { code: 'inspector/closed' } });
    expect(kit.sync.store.writeSlot.holder).toBeUndefined();
    expect(kit.clock.pending).toBe(0);
  });

  it('allows one hold per session: a second is refused with inspector/bad-request and queues nothing', async () => {
    kit = inspectorKit();
    await kit.call('transactions:hold', { ms: 600_000 });
    const error = await kit.fail('transactions:hold', { ms: 600_000 });
    expect(error.code).toBe('inspector/bad-request');
    expect(error.message).toMatch(/already has a hold/);
    expect((await kit.call('transactions:slot')).waiting).toEqual([]);
  });

  it('releases the session’s hold with transactions:release, which answers whether there was one', async () => {
    kit = inspectorKit();
    expect(await kit.call('transactions:release')).toEqual({ released: false });
    await kit.call('transactions:hold', { ms: 600_000, hint: 'qa' });
    expect(await kit.call('transactions:release')).toEqual({ released: true });
    expect(kit.sync.store.writeSlot.holder).toBeUndefined();
    expect(kit.clock.pending).toBe(0);
    expect(await kit.call('transactions:hold', { ms: 1_000 })).toEqual({ txnId: 2 });
    expect(await kit.fail('transactions:release', { now: true })).toMatchObject({ code: 'inspector/bad-request' });
  });

  it('cancels a hold still waiting for the slot on release: its call answers inspector/cancelled and nothing is held', async () => {
    kit = inspectorKit();
    const other = kit.inspector.openSession();
    await serveCall(other.handlers, 'transactions:hold', { ms: 5_000 });
    const queued = kit.call('transactions:hold', { ms: 600_000 }).catch((e: CallFailed) => e.error);
    await turns();
    expect(await kit.call('transactions:release')).toEqual({ released: true });
    kit.clock.advance(5_000);
    expect(await queued).toMatchObject({ code: 'inspector/cancelled' });
    await turns();
    expect(kit.sync.store.writeSlot.holder).toBeUndefined();
    expect(kit.clock.pending).toBe(0);
  });

  it('refuses a hold outside 1 ms to 10 minutes, or with bad fields, without touching the slot', async () => {
    kit = inspectorKit();
    const cases: [unknown, string][] = [
      [{}, 'ms'],
      [{ ms: 0 }, 'ms'],
      [{ ms: 600_001 }, 'ms'],
      [{ ms: -5 }, 'ms'],
      [{ ms: 1.5 }, 'ms'],
      [{ ms: '100' }, 'ms'],
      [{ ms: Number.NaN }, 'ms'],
      [{ ms: 100, hint: 5 }, 'hint'],
      [{ ms: 100, hint: 'x'.repeat(201) }, 'hint'],
      [{ ms: 100, forever: true }, 'forever'],
    ];
    for (const [input, field] of cases) {
      const error = await kit.fail('transactions:hold', input);
      expect([error.code, error.message.split(':')[0]]).toEqual(['inspector/bad-request', field]);
    }
    expect(await kit.fail('transactions:list', { since: 3 })).toMatchObject({ code: 'inspector/bad-request' });
    expect(await kit.fail('transactions:slot', 'now')).toMatchObject({ code: 'inspector/bad-request' });
    expect(kit.sync.store.writeSlot.holder).toBeUndefined();
    expect(kit.sync.store.lastTxnId).toBe(0);
  });
});
