import { beforeEach, describe, expect, it, vi } from 'vitest';
import { create } from 'zustand';
import type { QueryOutcome } from '../../../../shared/inspector/documents.ts';
import { deleteDocument } from '../../../../shared/inspector/statements.ts';
import type { JsonObject } from '../../../../shared/json.ts';
import { createFakeBridge, type FakeBridge } from '../../../../testing/renderer/fake-bridge.ts';
import { useBridge } from '../../client/index.ts';
import { createOverviewSlice } from '../overview/slice.ts';
import { createShellSlice } from '../../shell/slice.ts';
import type { InspectorState } from '../../store/types.ts';
import { rowAt } from './paging.ts';
import { createDocumentsSlice, parseArgs, wireDocumentsEvents } from './slice.ts';

/** A peer with one collection, `orders`, of `count` documents; results kept until `expire()`. */
function fakePeer(count: number) {
  let docs: JsonObject[] = Array.from({ length: count }, (_, i) => ({ _id: `o${String(i).padStart(6, '0')}`, n: i }));
  const results = new Map<string, JsonObject[]>();
  let next = 1;
  const fake: FakeBridge = createFakeBridge({
    'documents:query': ({ statement, args, pageSize = 200 }) => {
      if (statement.startsWith('BAD'))
        return { ok: false, error: { code: 'query/invalid', message: 'Syntax error at line 1 column 1', details: { line: 1, column: 1 } } };
      if (statement.startsWith('DELETE')) {
        const id = args?.['id'];
        docs = docs.filter((d) => d['_id'] !== id);
        const outcome: QueryOutcome = {
          statement,
          resultId: '',
          total: 0,
          rows: [],
          mutatedDocumentIds: [id ?? null],
          commitId: 7,
          elapsedMs: 1,
          truncated: false,
        };
        return { ok: true, value: outcome };
      }
      const id = `r${next++}`;
      const rows = [...docs];
      results.set(id, rows);
      return {
        ok: true,
        value: {
          statement,
          resultId: id,
          total: rows.length,
          rows: rows.slice(0, pageSize),
          mutatedDocumentIds: [],
          commitId: null,
          elapsedMs: 2,
          truncated: false,
        },
      };
    },
    'documents:rows': ({ resultId, offset, limit }) => {
      const rows = results.get(resultId);
      if (rows === undefined) return { ok: false, error: { code: 'inspector/not-found', message: 'expired' } };
      return { ok: true, value: { resultId, offset, total: rows.length, rows: rows.slice(offset, offset + limit) } };
    },
    'documents:metadata': ({ collection, id }) => {
      const value = docs.find((d) => d['_id'] === id);
      if (value === undefined) return { ok: false, error: { code: 'inspector/not-found', message: 'no document' } };
      const stamp = { writer: 'pk_local', writerRole: 'local' as const, hlc: '0000000000000000', time: '1970-01-01T00:00:00.000Z' };
      return { ok: true, value: { collection, id, value, txnId: 1, created: stamp, deleted: undefined, fields: [] } };
    },
  });
  return { fake, expire: () => results.clear(), queries: () => fake.calls.filter((c) => c.channel === 'documents:query').length };
}

function makeStore() {
  return create<InspectorState>()((...a) => ({ ...createShellSlice(...a), ...createOverviewSlice(...a), ...createDocumentsSlice(...a) }) as InspectorState);
}

/** Lets every pending promise settle. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

let peer: ReturnType<typeof fakePeer>;
let store: ReturnType<typeof makeStore>;

beforeEach(() => {
  peer = fakePeer(100_000);
  useBridge(peer.fake.bridge);
  store = makeStore();
});

describe('the Documents slice', () => {
  it('opens a collection with SELECT * and keeps the first page, its columns and its size', async () => {
    store.getState().openCollection('orders');
    await settled();
    const { result, run } = store.getState().documents;
    expect(store.getState().documentsView.editor.statement).toBe('SELECT * FROM orders');
    expect(store.getState().shellView.panel).toBe('documents');
    expect(run?.outcome.status).toBe('ready');
    expect(result?.cache.total).toBe(100_000);
    expect(result?.collection).toBe('orders');
    expect(result?.columns).toEqual(['_id', 'n']);
    expect(result && rowAt(result.cache, 199)).toEqual({ _id: 'o000199', n: 199 });
  });

  it('fetches the pages the table scrolls to, each once', async () => {
    store.getState().openCollection('orders');
    await settled();
    store.getState().ensureRows(50_000, 50_040);
    store.getState().ensureRows(50_000, 50_040);
    await settled();
    const pages = peer.fake.calls.filter((c) => c.channel === 'documents:rows');
    expect(pages).toHaveLength(1);
    expect(pages[0]?.input).toMatchObject({ offset: 50_000, limit: 200 });
    const result = store.getState().documents.result;
    expect(result && rowAt(result.cache, 50_039)).toEqual({ _id: 'o050039', n: 50_039 });
  });

  it('stores the pages that arrive before a frame in one update at that frame, and does not ask for them again meanwhile', async () => {
    const frames: (() => void)[] = [];
    vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => frames.push(() => callback(0)));
    try {
      store.getState().openCollection('orders');
      await settled();
      let updates = 0;
      const unsubscribe = store.subscribe(() => (updates += 1));
      store.getState().ensureRows(50_000, 50_300);
      await settled();
      store.getState().ensureRows(50_000, 50_300);
      await settled();
      expect(peer.fake.calls.filter((c) => c.channel === 'documents:rows')).toHaveLength(2);
      expect(updates).toBe(0);
      expect(frames).toHaveLength(1);
      frames.shift()?.();
      unsubscribe();
      expect(updates).toBe(1);
      const result = store.getState().documents.result;
      expect(result && rowAt(result.cache, 50_000)).toEqual({ _id: 'o050000', n: 50_000 });
      expect(result && rowAt(result.cache, 50_300)).toEqual({ _id: 'o050300', n: 50_300 });
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('runs an expired result again instead of failing', async () => {
    store.getState().openCollection('orders');
    await settled();
    peer.expire();
    store.getState().ensureRows(90_000, 90_010);
    await settled();
    await settled();
    expect(peer.queries()).toBe(2);
    expect(store.getState().documents.rowsError).toBeUndefined();
    const result = store.getState().documents.result;
    expect(result && rowAt(result.cache, 90_005)).toEqual({ _id: 'o090005', n: 90_005 });
  });

  it('shows an error with its code and position, and keeps the previous result', async () => {
    store.getState().openCollection('orders');
    await settled();
    store.getState().setEditor({ statement: 'BAD' });
    await store.getState().runConsole();
    const { run, result } = store.getState().documents;
    expect(run?.outcome.error).toMatchObject({ code: 'query/invalid', details: { line: 1, column: 1 } });
    expect(result?.cache.total).toBe(100_000);
  });

  it('refuses arguments that are not a JSON object without asking the peer', async () => {
    store.getState().setEditor({ statement: 'SELECT * FROM orders', args: '[1]' });
    await store.getState().runConsole();
    expect(store.getState().documents.run?.outcome.error?.code).toBe('query/arguments-invalid');
    expect(peer.fake.calls).toHaveLength(0);
    expect(parseArgs('{"a": 1}')).toEqual({ ok: true, args: { a: 1 } });
    expect(parseArgs('  ')).toEqual({ ok: true, args: {} });
    expect(parseArgs('{oops').ok).toBe(false);
  });

  it('keeps every statement run in the history and browses it', async () => {
    store.getState().setEditor({ statement: 'SELECT * FROM orders', args: '' });
    await store.getState().runConsole();
    store.getState().setEditor({ statement: 'BAD', args: '' });
    await store.getState().runConsole();
    store.getState().setEditor({ statement: 'typing', args: '' });
    expect(store.getState().documentsView.history.entries.map((e) => [e.statement, e.ok])).toEqual([
      ['SELECT * FROM orders', true],
      ['BAD', false],
    ]);
    expect(store.getState().historyStep(-1)).toBe(true);
    expect(store.getState().documentsView.editor.statement).toBe('BAD');
    store.getState().historyStep(-1);
    expect(store.getState().documentsView.editor.statement).toBe('SELECT * FROM orders');
    store.getState().historyStep(1);
    store.getState().historyStep(1);
    expect(store.getState().documentsView.editor.statement).toBe('typing');
  });

  it('runs a UI action, closes its dialog, and refreshes the result without moving it', async () => {
    store.getState().openCollection('orders');
    await settled();
    store.getState().ensureRows(1_000, 1_020);
    await settled();
    store.getState().selectRow(1_000);
    await settled();
    expect(store.getState().documents.detail.value?.id).toBe('o001000');
    const epoch = store.getState().documents.result?.epoch;
    store.getState().openDialog({ kind: 'delete', collection: 'orders', id: 'o001000' });
    const ok = await store.getState().runAction('Delete document', deleteDocument('orders', 'o001000'));
    await settled();
    await settled();
    expect(ok).toBe(true);
    const { documents, documentsView } = store.getState();
    expect(documentsView.dialog).toBeUndefined();
    expect(documents.run).toMatchObject({
      source: 'action',
      label: 'Delete document',
      statement: 'DELETE FROM orders WHERE _id = :id',
      args: { id: 'o001000' },
    });
    expect(documents.result?.cache.total).toBe(99_999);
    expect(documents.result && rowAt(documents.result.cache, 1_000)).toEqual({ _id: 'o001001', n: 1_001 });
    expect(documents.result?.epoch).toBe(epoch);
    expect(documents.detail.error?.code).toBe('inspector/not-found');
  });

  it('follows the selected document when a row before it goes away', async () => {
    store.getState().openCollection('orders');
    await settled();
    store.getState().selectRow(150);
    await store.getState().runAction('Delete document', deleteDocument('orders', 'o000010'));
    await settled();
    await settled();
    expect(store.getState().documentsView.selected).toMatchObject({ index: 149, id: 'o000150' });
  });

  it('keeps a failed action’s dialog open with its error', async () => {
    store.getState().openDialog({ kind: 'delete', collection: 'orders', id: 'x' });
    const ok = await store.getState().runAction('Delete document', { statement: 'BAD', args: {} });
    expect(ok).toBe(false);
    expect(store.getState().documentsView.dialog).toEqual({ kind: 'delete', collection: 'orders', id: 'x' });
    expect(store.getState().documents.action.error?.code).toBe('query/invalid');
  });

  it('refreshes live when a commit changes the result’s collection, and only marks it stale when live is off', async () => {
    const stop = wireDocumentsEvents(store);
    store.getState().openCollection('orders');
    await settled();
    peer.fake.emit('store:changed', { txnId: 2, collections: ['elsewhere'] });
    await settled();
    expect(peer.queries()).toBe(1);
    peer.fake.emit('store:changed', { txnId: 3, collections: ['orders'] });
    await settled();
    expect(peer.queries()).toBe(2);
    store.getState().setDocumentsView({ live: false });
    peer.fake.emit('store:changed', { txnId: 4, collections: ['orders'] });
    await settled();
    expect(peer.queries()).toBe(2);
    expect(store.getState().documents.result?.stale).toBe(true);
    stop();
  });

  it('leaves a live result alone while another panel is shown, and refreshes it when the panel shows again', async () => {
    const stop = wireDocumentsEvents(store);
    store.getState().openCollection('orders');
    await settled();
    store.getState().showPanel('overview');
    peer.fake.emit('store:changed', { txnId: 5, collections: ['orders'] });
    await settled();
    expect(peer.queries()).toBe(1);
    expect(store.getState().documents.result?.stale).toBe(true);
    store.getState().showPanel('documents');
    await settled();
    await settled();
    expect(peer.queries()).toBe(2);
    expect(store.getState().documents.result?.stale).toBe(false);
    stop();
  });
});
