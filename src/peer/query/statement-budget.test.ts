/**
 * `store.execute` with a budget and with targets found beforehand, on both storages: a spent
 * budget stops a statement between rows and rolls a mutation back, a mutation that waited for
 * the write slot past its budget never runs, and targets from an older snapshot give exactly what
 * the condition selects at commit time.
 */
import { describe, expect, it } from 'vitest';
import { Budget } from '../budget.ts';
import { STORAGES, failureOf, freshPeer } from '../../testing/dql-test-peers.ts';

/** About a millisecond or more a document, whatever the storage. */
const COSTLY = Array.from({ length: 150 }, (_, i) => `array_contains(items, {k: ${i}, v: 'none'})`).join(' OR ');
const docs = (count: number): object[] =>
  Array.from({ length: count }, (_, i) => ({ _id: `d${String(i).padStart(3, '0')}`, n: i, items: Array.from({ length: 100 }, (_, j) => ({ k: j })) }));

describe.each(STORAGES)('a statement budget on %s storage', (_kind, open) => {
  const { peer } = freshPeer(open);

  it('stops a SELECT between rows once its budget is spent, with query/timeout', async () => {
    await peer().store.execute('INSERT INTO t DOCUMENTS (:docs)', { docs: docs(300) });
    const started = performance.now();
    const error = await failureOf(peer().store.execute(`SELECT _id FROM t WHERE ${COSTLY}`, undefined, { budget: new Budget(30) }));
    expect(error).toMatchObject({ code: 'query/timeout', message: 'the statement ran longer than its budget of 30 ms and was stopped' });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('rolls back an UPDATE whose budget is spent: nothing written, no transaction', async () => {
    await peer().store.execute('INSERT INTO t DOCUMENTS (:docs)', { docs: docs(300) });
    const before = peer().store.lastTxnId;
    const error = await failureOf(peer().store.execute(`UPDATE t SET flagged = true WHERE ${COSTLY} OR n >= 0`, undefined, { budget: new Budget(30) }));
    expect(error).toMatchObject({ code: 'query/timeout' });
    expect(peer().store.lastTxnId).toBe(before);
    expect((await peer().store.execute('SELECT COUNT(*) AS n FROM t WHERE flagged = true')).items).toEqual([{ n: 0 }]);
  });

  it('never runs a mutation whose budget was spent while it waited for the write slot', async () => {
    const budget = new Budget(60_000);
    const held = peer().store.transaction(async (tx) => {
      await tx.execute("INSERT INTO t DOCUMENTS ({_id: 'first'})");
      budget.expire(); // as the Big Peer does when the statement's deadline passes
    });
    const waiting = peer().store.execute("INSERT INTO t DOCUMENTS ({_id: 'second'})", undefined, { budget });
    await held;
    expect(await failureOf(waiting)).toMatchObject({ code: 'query/timeout' });
    expect((await peer().store.execute('SELECT _id FROM t')).items).toEqual([{ _id: 'first' }]);
  });

  it('leaves statements within their budget as they were', async () => {
    await peer().store.execute('INSERT INTO t DOCUMENTS (:docs)', { docs: docs(5) });
    const budget = (): { budget: Budget } => ({ budget: new Budget(60_000) });
    expect((await peer().store.execute('SELECT _id FROM t WHERE n >= 3 ORDER BY n DESC', undefined, budget())).items).toEqual([
      { _id: 'd004' },
      { _id: 'd003' },
    ]);
    expect((await peer().store.execute('SELECT COUNT(*) AS c FROM t', undefined, budget())).items).toEqual([{ c: 5 }]);
    expect((await peer().store.execute('DELETE FROM t WHERE n < 2', undefined, budget())).mutatedDocumentIds).toEqual(['d000', 'd001']);
    expect((await peer().store.execute('EVICT FROM t WHERE n = 4', undefined, budget())).mutatedDocumentIds).toEqual(['d004']);
  });
});

describe.each(STORAGES)('targets found in an older snapshot, on %s storage', (_kind, open) => {
  const { peer } = freshPeer(open);

  /** What a query thread finds: the ids the condition selects now, and the snapshot. */
  const targetsOf = async (where: string): Promise<{ ids: string[]; snapshotTxnId: number }> => ({
    ids: (await peer().store.execute(`SELECT _id FROM t WHERE ${where}`)).items.map((i) => i._id as string),
    snapshotTxnId: peer().store.lastTxnId,
  });

  it('updates what the condition selects at commit time: unchanged targets, and documents written since that match', async () => {
    await peer().store.execute('INSERT INTO t DOCUMENTS (:docs)', { docs: docs(6) });
    const targets = await targetsOf('n < 3');
    expect(targets.ids).toEqual(['d000', 'd001', 'd002']);
    await peer().store.execute("UPDATE t SET n = 100 WHERE _id = 'd001'"); // leaves
    await peer().store.execute("UPDATE t SET n = 0 WHERE _id = 'd005'"); // joins
    await peer().store.execute("INSERT INTO t DOCUMENTS ({_id: 'a-new', n: 1})"); // joins
    await peer().store.execute("DELETE FROM t WHERE _id = 'd002'"); // gone
    const result = await peer().store.execute('UPDATE t SET hit = true WHERE n < 3', undefined, { targets });
    expect(result.mutatedDocumentIds).toEqual(['a-new', 'd000', 'd005']);
    expect((await peer().store.execute('SELECT _id FROM t WHERE hit = true')).items).toEqual([{ _id: 'a-new' }, { _id: 'd000' }, { _id: 'd005' }]);
  });

  it('deletes and evicts what the condition selects at commit time', async () => {
    await peer().store.execute('INSERT INTO t DOCUMENTS (:docs)', { docs: docs(6) });
    const deleting = await targetsOf('n < 2');
    await peer().store.execute("UPDATE t SET n = 1 WHERE _id = 'd004'");
    expect((await peer().store.execute('DELETE FROM t WHERE n < 2', undefined, { targets: deleting })).mutatedDocumentIds).toEqual(['d000', 'd001', 'd004']);
    const evicting = await targetsOf('n >= 3');
    await peer().store.execute("UPDATE t SET n = 0 WHERE _id = 'd003'");
    expect((await peer().store.execute('EVICT FROM t WHERE n >= 3', undefined, { targets: evicting })).mutatedDocumentIds).toEqual(['d005']);
    expect((await peer().store.execute('SELECT _id FROM t')).items).toEqual([{ _id: 'd002' }, { _id: 'd003' }]);
  });

  it('takes the targets of an EVICT with LIMIT only when nothing was written since, and evaluates it again otherwise', async () => {
    await peer().store.execute('INSERT INTO t DOCUMENTS (:docs)', { docs: docs(6) });
    const ids = (await peer().store.execute('SELECT _id FROM t ORDER BY n DESC LIMIT 2')).items.map((i) => i._id as string);
    const targets = { ids, snapshotTxnId: peer().store.lastTxnId };
    await peer().store.execute("UPDATE t SET n = 50 WHERE _id = 'd000'");
    expect((await peer().store.execute('EVICT FROM t WHERE n >= 0 ORDER BY n DESC LIMIT 2', undefined, { targets })).mutatedDocumentIds).toEqual([
      'd000',
      'd005',
    ]);
    const unchanged = { ids: ['d003'], snapshotTxnId: peer().store.lastTxnId };
    expect((await peer().store.execute('EVICT FROM t WHERE n >= 0 ORDER BY n DESC LIMIT 1', undefined, { targets: unchanged })).mutatedDocumentIds).toEqual([
      'd003',
    ]);
  });
});
