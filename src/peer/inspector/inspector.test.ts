/**
 * The inspector's life: every channel answered through serveCall, events to every session, a
 * sender that throws, and close() leaving nothing behind.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CALL_NAMES, type EventName } from '../../shared/inspector/contract.ts';
import { EVENT_COALESCE_MS } from './inspector.ts';
import { serveCall } from './serve-call.ts';
import { inspectorKit, turns, type InspectorKit } from '../../testing/inspector/test-kit.ts';

let kit: InspectorKit | undefined;
afterEach(() => {
  kit?.dispose();
  kit = undefined;
});

describe('an inspector session', () => {
  it('serves every channel of the contract and refuses nonsense input on each with inspector/bad-request', async () => {
    kit = inspectorKit();
    for (const channel of CALL_NAMES) {
      expect(typeof kit.session.handlers[channel]).toBe('function');
      for (const input of [42, 'x', [], null, { __nonsense__: 1 }]) {
        const result = await serveCall(kit.session.handlers, channel, input);
        expect([channel, result.ok ? 'ok' : result.error.code]).toEqual([channel, 'inspector/bad-request']);
      }
    }
    expect(kit.sync.store.lastTxnId).toBe(0);
    expect(kit.sync.store.subscriptions).toHaveLength(1);
  });

  it('pushes every event to every session; a sender that throws breaks neither the peer nor the others', async () => {
    kit = inspectorKit();
    const other = kit.inspector.openSession();
    other.onEvent(() => {
      throw new Error('a broken window');
    });
    const third: EventName[] = [];
    kit.inspector.openSession().onEvent((event) => third.push(event));
    await kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a' } });
    kit.sync.store.registerSubscription('SELECT * FROM orders');
    kit.clock.advance(EVENT_COALESCE_MS);
    await turns();
    for (const events of [kit.events.map((e) => e.event), third]) {
      expect(events).toEqual(expect.arrayContaining(['transactions:committed', 'store:changed', 'subscriptions:changed', 'logs:batch']));
    }
    expect((await kit.sync.store.execute('SELECT * FROM orders')).items).toEqual([{ _id: 'a' }]);
    expect(kit.hub.recentEntries().filter((e) => e.event === 'listener.failed')).toEqual([]);
  });

  it('stops a closed session’s events and frees its results, the others going on', async () => {
    kit = inspectorKit();
    const other = kit.inspector.openSession();
    const seen: EventName[] = [];
    other.onEvent((event) => seen.push(event));
    await kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a' } });
    const query = await serveCall(other.handlers, 'documents:query', { statement: 'SELECT * FROM orders' });
    const resultId = query.ok ? (query.value as { resultId: string }).resultId : '';
    other.close();
    other.close();
    seen.length = 0;
    await kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:b)', { b: { _id: 'b' } });
    await turns();
    expect(seen).toEqual([]);
    expect(kit.eventsOf('store:changed')).toHaveLength(2);
    const rows = await serveCall(other.handlers, 'documents:rows', { resultId, offset: 0, limit: 1 });
    expect(rows.ok ? 'ok' : rows.error.code).toBe('inspector/closed');
  });

  it('answers every call on a closed session with inspector/closed, and runs nothing', async () => {
    kit = inspectorKit();
    const tab = kit.inspector.openSession();
    tab.close();
    for (const channel of CALL_NAMES) {
      const result = await serveCall(tab.handlers, channel, {});
      expect([channel, result.ok ? 'ok' : result.error.code]).toEqual([channel, 'inspector/closed']);
    }
    const insert = await serveCall(tab.handlers, 'documents:query', { statement: "INSERT INTO orders DOCUMENTS ({'_id': 'late'})" });
    const hold = await serveCall(tab.handlers, 'transactions:hold', { ms: 600_000 });
    expect([insert.ok, hold.ok]).toEqual([false, false]);
    expect(kit.sync.store.lastTxnId).toBe(0);
    expect(kit.sync.store.writeSlot.holder).toBeUndefined();
  });

  it('keeps no result of a SELECT still running when its session closed', async () => {
    kit = inspectorKit();
    const tab = kit.inspector.openSession();
    const query = serveCall(tab.handlers, 'documents:query', { statement: 'SELECT * FROM orders' });
    tab.close();
    const result = await query;
    expect(result.ok ? 'ok' : result.error.code).toBe('inspector/closed');
  });
});

describe('closing the inspector', () => {
  it('answers calls on its sessions with inspector/closed afterwards: no write, no subscription, no hold', async () => {
    kit = inspectorKit();
    kit.inspector.close();
    const insert = await serveCall(kit.session.handlers, 'documents:query', { statement: "INSERT INTO orders DOCUMENTS ({'_id': 'after-close'})" });
    const register = await serveCall(kit.session.handlers, 'subscriptions:register', { statement: 'SELECT * FROM after_close' });
    const hold = await serveCall(kit.session.handlers, 'transactions:hold', { ms: 600_000 });
    for (const result of [insert, register, hold]) expect(result.ok ? 'ok' : result.error.code).toBe('inspector/closed');
    expect(kit.sync.store.lastTxnId).toBe(0);
    expect(kit.sync.store.subscriptions).toHaveLength(1);
    expect(kit.sync.store.writeSlot.holder).toBeUndefined();
  });

  it('leaves no listener, timer, hold or log subscription behind, and refuses new sessions', async () => {
    kit = inspectorKit();
    await kit.call('transactions:hold', { ms: 60_000 });
    kit.sync.store.registerSubscription('SELECT * FROM a'); // arms the coalescing timer
    expect(kit.clock.pending).toBeGreaterThan(0);
    kit.inspector.close();
    kit.inspector.close();
    await turns();
    expect(kit.clock.pending).toBe(0);
    expect(kit.sync.store.writeSlot.holder).toBeUndefined();
    kit.events.length = 0;
    await kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a' } });
    kit.sync.store.registerSubscription('SELECT * FROM b');
    kit.hub.logger('test').info('test.after');
    kit.clock.advance(10 * EVENT_COALESCE_MS);
    await turns();
    expect(kit.events).toEqual([]);
    expect(kit.clock.pending).toBe(0);
    expect(() => kit?.inspector.openSession()).toThrow(/closed/);
  });

  it('lets the Sync close under an open inspector, calls then failing with store/closed as values', async () => {
    kit = inspectorKit();
    kit.sync.close();
    for (const channel of ['overview:get', 'documents:query', 'subscriptions:list', 'transactions:hold'] as const) {
      const input = channel === 'documents:query' ? { statement: 'SELECT * FROM a' } : channel === 'transactions:hold' ? { ms: 10 } : {};
      const result = await serveCall(kit.session.handlers, channel, input);
      expect([channel, result.ok ? 'ok' : result.error.code]).toEqual([channel, 'store/closed']);
    }
  });
});
