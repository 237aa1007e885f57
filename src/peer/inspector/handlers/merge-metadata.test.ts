import { afterEach, describe, expect, it } from 'vitest';
import { formatHlc } from '../../crdt/hlc.ts';
import { inspectorKit, type InspectorKit } from '../../../testing/inspector/test-kit.ts';
import { hlcTime } from './merge-metadata.ts';

let kit: InspectorKit | undefined;
afterEach(() => {
  kit?.dispose();
  kit = undefined;
});

const iso = (ms: number): string => new Date(ms).toISOString();

describe('documents:metadata', () => {
  it('tells every leaf field with who wrote its winning value and when, in path order', async () => {
    kit = inspectorKit();
    const created = kit.clock.now();
    await kit.sync.store.execute('INSERT INTO people DOCUMENTS (:p)', {
      p: { _id: 'ada', name: 'Ada', address: { city: 'London', zip: 'N1' }, tags: ['x', 'y'], empty: {} },
    });
    kit.clock.advance(1_000);
    await kit.sync.store.execute("UPDATE people SET address.city = 'Paris' WHERE _id = 'ada'");
    const me = kit.sync.peerKey;
    const meta = await kit.call('documents:metadata', { collection: 'people', id: 'ada' });
    expect(meta).toMatchObject({ collection: 'people', id: 'ada', txnId: 2, deleted: undefined });
    expect(meta.value).toEqual({ _id: 'ada', name: 'Ada', address: { city: 'Paris', zip: 'N1' }, tags: ['x', 'y'], empty: {} });
    expect(meta.created).toEqual({ writer: me, writerRole: 'local', hlc: formatHlc(created, 0), time: iso(created) });
    expect(meta.fields.map((f) => [f.path, f.kind, f.value, f.stamp.time])).toEqual([
      ['_id', 'register', 'ada', iso(created)],
      ['address.city', 'register', 'Paris', iso(created + 1_000)],
      ['address.zip', 'register', 'N1', iso(created)],
      ['empty', 'register', {}, iso(created)],
      ['name', 'register', 'Ada', iso(created)],
      ['tags', 'register', ['x', 'y'], iso(created)],
    ]);
  });

  it('tells a counter’s sum and each writer’s net tally, and a removed (UNSET) path', async () => {
    kit = inspectorKit();
    await kit.sync.store.execute('INSERT INTO people DOCUMENTS (:p)', { p: { _id: 'p', old: 1, 'odd name': true } });
    kit.clock.advance(10);
    await kit.sync.store.execute('UPDATE people APPLY ownedCars PN_INCREMENT BY 3.0 WHERE _id = :id', { id: 'p' });
    await kit.sync.store.execute('UPDATE people APPLY ownedCars PN_INCREMENT BY -1.0 WHERE _id = :id', { id: 'p' });
    kit.clock.advance(10);
    await kit.sync.store.execute('UPDATE people UNSET old WHERE _id = :id', { id: 'p' });
    const meta = await kit.call('documents:metadata', { collection: 'people', id: 'p' });
    const me = kit.sync.peerKey;
    expect(meta.fields.map((f) => [f.path, f.kind, f.value, f.tallies])).toEqual([
      ['_id', 'register', 'p', undefined],
      ['`odd name`', 'register', true, undefined],
      ['old', 'removed', null, undefined],
      ['ownedCars', 'counter', 2, { [me]: 2 }],
    ]);
    const removed = meta.fields.find((f) => f.kind === 'removed');
    expect(removed?.stamp.time).toBe(iso(kit.clock.now()));
  });

  it('tells a tombstone: no value, the deletion stamp, and its txn id', async () => {
    kit = inspectorKit();
    await kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: { site: 'A', n: 1 }, total: 5 } });
    kit.clock.advance(60_000);
    await kit.sync.store.execute('DELETE FROM orders WHERE total = 5');
    const meta = await kit.call('documents:metadata', { collection: 'orders', id: { site: 'A', n: 1 } });
    expect(meta).toMatchObject({ value: null, txnId: 2, deleted: { writer: kit.sync.peerKey, writerRole: 'local', time: iso(kit.clock.now()) } });
    expect(meta.fields.filter((f) => f.kind !== 'removed')).toEqual([]);
  });

  it('answers inspector/not-found for a document the peer does not hold, and after an EVICT', async () => {
    kit = inspectorKit();
    expect(await kit.fail('documents:metadata', { collection: 'orders', id: 'nope' })).toMatchObject({
      code: 'inspector/not-found',
      message: expect.stringContaining('id:'),
    });
    await kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'e' } });
    await kit.sync.store.execute("EVICT FROM orders WHERE _id = 'e'");
    expect(await kit.fail('documents:metadata', { collection: 'orders', id: 'e' })).toMatchObject({ code: 'inspector/not-found' });
  });

  it('refuses bad input naming the field', async () => {
    kit = inspectorKit();
    const cases: [unknown, string][] = [
      [{ id: 'a' }, 'collection'],
      [{ collection: '', id: 'a' }, 'collection'],
      [{ collection: 7, id: 'a' }, 'collection'],
      [{ collection: 'c' }, 'id'],
      [{ collection: 'c', id: 5 }, 'id'],
      [{ collection: 'c', id: null }, 'id'],
      [{ collection: 'c', id: ['a'] }, 'id'],
      [{ collection: 'c', id: 'a', deep: true }, 'deep'],
    ];
    for (const [input, field] of cases) {
      const error = await kit.fail('documents:metadata', input);
      expect([error.code, error.message.split(':')[0]]).toEqual(['inspector/bad-request', field]);
    }
  });

  it('refuses an id nested deeper than 100 levels, even 10,000 deep, with inspector/bad-request and no stack overflow', async () => {
    kit = inspectorKit();
    const nested = (levels: number): unknown => {
      let value: unknown = { x: 1 };
      for (let i = 1; i < levels; i++) value = { a: value };
      return value;
    };
    for (const channel of ['documents:metadata', 'permissions:check']) {
      for (const levels of [101, 10_000]) {
        const error = await kit.fail(channel, { collection: 'c', id: nested(levels) });
        expect([channel, error.code, error.message]).toEqual([channel, 'inspector/bad-request', 'id: nests deeper than 100 levels (no document _id can)']);
      }
    }
    expect(await kit.fail('documents:metadata', { collection: 'c', id: nested(100) })).toMatchObject({ code: 'inspector/not-found' });
  });
});

describe('hlcTime', () => {
  it('reads 12 hex digits of milliseconds and ignores the 4 of the counter', () => {
    expect(hlcTime(formatHlc(Date.UTC(2026, 0, 2, 3, 4, 5, 678), 0xbeef))).toBe('2026-01-02T03:04:05.678Z');
    expect(hlcTime('not a stamp')).toBe('invalid');
  });
});
