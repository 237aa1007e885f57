import { describe, expect, it } from 'vitest';
import type { Hlc } from '../crdt/hlc.ts';
import { MemoryStorage } from './memory-storage.ts';
import { RecordingWriter } from './recording-writer.ts';
import type { DocumentQuery, StoredDocument } from './types.ts';

const META = { c: ['0000000000010000' as Hlc, 'peer'] as const };
const doc = (id: string, txnId = 1): StoredDocument => ({ id, value: { _id: id }, meta: META, txnId });
const all = (collection: string): DocumentQuery => ({ collection, where: undefined, params: {}, orderBy: [], limit: undefined, offset: 0 });

describe('RecordingWriter', () => {
  it('records put for every put and insert, and evict for every evicted id', () => {
    new MemoryStorage().write((inner) => {
      const w = new RecordingWriter(inner);
      w.put('c', doc('a'));
      w.put('c', { id: 'gone', value: null, meta: META, txnId: 1 });
      expect(w.insertIfAbsent('c', doc('b'))).toBe(true);
      expect(w.insertIfAbsent('c', doc('b'))).toBe(false);
      w.evict(all('c'));
      expect(w.changes).toEqual([
        { collection: 'c', id: 'a', kind: 'put', after: { _id: 'a' } },
        { collection: 'c', id: 'gone', kind: 'put', after: null },
        { collection: 'c', id: 'b', kind: 'put', after: { _id: 'b' } },
        { collection: 'c', id: 'a', kind: 'evict', after: null },
        { collection: 'c', id: 'b', kind: 'evict', after: null },
      ]);
    });
  });

  it('drops the changes undone by a savepoint rollback', () => {
    new MemoryStorage().write((inner) => {
      const w = new RecordingWriter(inner);
      w.put('c', doc('a'));
      const sp = w.savepoint();
      w.evict(all('c'));
      sp.rollback();
      expect(w.changes.map((c) => [c.id, c.kind])).toEqual([['a', 'put']]);
    });
  });

  it('passes changedSince through to the storage it wraps', () => {
    new MemoryStorage().write((inner) => {
      const w = new RecordingWriter(inner);
      w.put('c', doc('a', 1));
      w.put('c', doc('b', 2));
      const page = w.changedSince({ collection: 'c', afterTxnId: 1, uptoTxnId: 2, limit: 5 });
      expect(page).toEqual(inner.changedSince({ collection: 'c', afterTxnId: 1, uptoTxnId: 2, limit: 5 }));
      expect(page.documents.map((d) => d.id)).toEqual(['b']);
    });
  });
});
