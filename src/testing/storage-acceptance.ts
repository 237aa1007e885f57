/**
 * The acceptance suite every StorageEngine passes: SQLite and the in-memory twin run the same
 * tests (`runStorageAcceptanceTests(name, open)`), so the twin can stand in for SQLite in fast
 * tests of the layers above.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../shared/json.ts';
import type { Expr } from '../peer/dql/ast.ts';
import { parseCondition } from '../peer/dql/parser.ts';
import { sortKey } from '../peer/dql/sort-key.ts';
import { runQuery } from '../peer/storage/js-query.ts';
import type { Hlc } from '../peer/crdt/hlc.ts';
import type { ChangeCursor, ChangeQuery, DocumentQuery, StorageEngine, StorageReader, StoredDocument } from '../peer/storage/types.ts';

const POS = { line: 1, column: 1, offset: 0 };
const META = { c: ['0000000000010000' as Hlc, 'peer'] as const };

function doc(value: JsonObject, txnId = 1): StoredDocument {
  return { id: value._id as JsonValue, value, meta: META, txnId };
}

function query(collection: string, extra: Partial<DocumentQuery> = {}): DocumentQuery {
  return { collection, where: undefined, params: {}, orderBy: [], limit: undefined, offset: 0, ...extra };
}

const gt = (field: string, value: number): Expr => ({
  kind: 'binary',
  op: '>',
  left: { kind: 'path', segments: [field], pos: POS },
  right: { kind: 'literal', value, pos: POS },
  pos: POS,
});

/** Every page of `changedSince` from the start, each as [`_id`, txn_id] pairs. */
function allPages(reader: StorageReader, q: Omit<ChangeQuery, 'cursor'>): [JsonValue, number][][] {
  const pages: [JsonValue, number][][] = [];
  let cursor: ChangeCursor | undefined;
  do {
    const page = reader.changedSince({ ...q, cursor });
    pages.push(page.documents.map((d) => [d.id, d.txnId]));
    cursor = page.next;
  } while (cursor !== undefined && pages.length < 100);
  return pages;
}

const changes = (collection: string, afterTxnId: number, uptoTxnId: number, limit = 100): Omit<ChangeQuery, 'cursor'> => ({
  collection,
  afterTxnId,
  uptoTxnId,
  limit,
});

export function runStorageAcceptanceTests(name: string, open: () => { storage: StorageEngine; cleanup: () => void }): void {
  describe(`${name} storage`, () => {
    function withStorage(fn: (s: StorageEngine) => void): void {
      const { storage, cleanup } = open();
      try {
        fn(storage);
      } finally {
        storage.close();
        cleanup();
      }
    }

    it('tells its size on disk in two parts, the database and the write-ahead log, that add up to the whole', () => {
      withStorage((s) => {
        s.write((w) => w.put('c', doc({ _id: 'a', text: 'x'.repeat(1000) })));
        const usage = s.diskUsage();
        expect(usage.databaseBytes).toBeGreaterThanOrEqual(0);
        expect(usage.walBytes).toBeGreaterThanOrEqual(0);
        expect(usage.databaseBytes + usage.walBytes).toBe(s.sizeOnDisk());
      });
    });

    it('gives back what was put, and nothing for an _id never written', () => {
      withStorage((s) => {
        s.write((w) => w.put('c', doc({ _id: 'a', n: 1, nested: { x: [1, 'two', null] } })));
        expect(s.read((r) => r.get('c', 'a'))).toEqual(doc({ _id: 'a', n: 1, nested: { x: [1, 'two', null] } }));
        expect(s.read((r) => r.get('c', 'b'))).toBeUndefined();
        expect(s.read((r) => r.get('other', 'a'))).toBeUndefined();
      });
    });

    it('finds object ids regardless of their key order', () => {
      withStorage((s) => {
        s.write((w) => w.put('c', doc({ _id: { a: 1, b: 2 }, n: 1 })));
        expect(s.read((r) => r.get('c', { b: 2, a: 1 }))?.value).toEqual({ _id: { a: 1, b: 2 }, n: 1 });
      });
    });

    it('puts a document by its _id whatever became of the document it replaces', () => {
      withStorage((s) => {
        s.write((w) => {
          w.put('c', doc({ _id: 'a', n: 1 }));
          w.put('c', doc({ _id: 'b', n: 1 }));
        });
        const [a, b] = s.read((r) => r.findDocuments(query('c'))) as [StoredDocument, StoredDocument];
        s.write((w) => {
          w.evict(query('c', { where: gt('n', 0), orderBy: [{ expr: { kind: 'path', segments: ['_id'], pos: POS }, direction: 'DESC' }], limit: 1 }));
          // A row freed by the eviction may be taken by another collection's document.
          w.put('y', doc({ _id: 'b', n: 9 }));
          w.put('c', doc({ _id: 'b', n: 2 }), b);
          w.put('c', doc({ _id: 'a', n: 3 }), b);
        });
        s.write((w) => w.put('c', doc({ _id: 'a', n: 4 }, 3), a));
        expect(s.read((r) => r.findValues(query('c')))).toEqual([
          { _id: 'a', n: 4 },
          { _id: 'b', n: 2 },
        ]);
        expect(s.read((r) => r.findValues(query('y')))).toEqual([{ _id: 'b', n: 9 }]);
        expect(s.read((r) => r.get('c', 'a'))?.txnId).toBe(3);
      });
    });

    it('inserts only where no document or tombstone has the _id', () => {
      withStorage((s) => {
        expect(s.write((w) => w.insertIfAbsent('c', doc({ _id: 'a', n: 1 })))).toBe(true);
        expect(s.write((w) => w.insertIfAbsent('c', doc({ _id: 'a', n: 2 })))).toBe(false);
        s.write((w) => w.put('c', { id: 'b', value: null, meta: META, txnId: 2 }));
        expect(s.write((w) => w.insertIfAbsent('c', doc({ _id: 'b', n: 3 })))).toBe(false);
        expect(s.read((r) => r.get('c', 'a'))?.value).toEqual({ _id: 'a', n: 1 });
      });
    });

    it('inserts many in one call, each only where no document or tombstone has its _id, and says which', () => {
      withStorage((s) => {
        s.write((w) => w.insertIfAbsent('c', doc({ _id: 'b', n: 1 })));
        s.write((w) => w.put('c', { id: 'd', value: null, meta: META, txnId: 2 }));
        s.write((w) => w.insertIfAbsent('other', doc({ _id: 'a', n: 0 })));
        const ids = ['a', 'b', 'c', 'd', 'e', 7, { k: 1 }];
        const inserted = s.write((w) =>
          w.insertManyIfAbsent(
            'c',
            ids.map((id, i) => doc({ _id: id, n: 10 + i })),
          ),
        );
        expect(inserted).toEqual([true, false, true, false, true, true, true]);
        expect(s.read((r) => r.get('c', 'b'))?.value).toEqual({ _id: 'b', n: 1 });
        expect(s.read((r) => r.get('c', 'd'))?.value).toBeNull();
        expect(s.read((r) => r.get('c', { k: 1 }))?.value).toEqual({ _id: { k: 1 }, n: 16 });
        expect(s.read((r) => r.findValues(query('c'))).map((d) => d._id)).toEqual([7, 'a', 'b', 'c', 'e', { k: 1 }]);
        expect(s.read((r) => r.get('other', 'a'))?.value).toEqual({ _id: 'a', n: 0 });
        // Past one statement's batch: 2,500 documents, every other one already there.
        s.write((w) => {
          for (let i = 0; i < 2_500; i += 2) w.insertIfAbsent('many', doc({ _id: `m${String(i).padStart(4, '0')}`, n: -1 }));
        });
        const many = Array.from({ length: 2_500 }, (_, i) => doc({ _id: `m${String(i).padStart(4, '0')}`, n: i }));
        const flags = s.write((w) => w.insertManyIfAbsent('many', many));
        expect(flags).toEqual(many.map((_, i) => i % 2 === 1));
        expect(s.read((r) => r.get('many', 'm2499'))?.value).toEqual({ _id: 'm2499', n: 2499 });
        expect(s.read((r) => r.get('many', 'm2498'))?.value).toEqual({ _id: 'm2498', n: -1 });
      });
    });

    it('keeps tombstones out of queries but gives them to get', () => {
      withStorage((s) => {
        s.write((w) => {
          w.put('c', doc({ _id: 'a' }));
          w.put('c', { id: 'b', value: null, meta: META, txnId: 2 });
        });
        expect(s.read((r) => r.findValues(query('c')))).toEqual([{ _id: 'a' }]);
        expect(s.read((r) => r.get('c', 'b'))).toEqual({ id: 'b', value: null, meta: META, txnId: 2 });
        expect(s.read((r) => r.collections())).toEqual([{ name: 'c', documents: 1, tombstones: 1 }]);
      });
    });

    it('returns documents in _id order across types: numbers, then strings, then objects', () => {
      withStorage((s) => {
        s.write((w) => {
          for (const id of ['b', 10, { k: 1 }, 'a', 2, -1.5, 'B']) w.put('c', doc({ _id: id }));
        });
        expect(s.read((r) => r.findValues(query('c'))).map((d) => d._id)).toEqual([-1.5, 2, 10, 'B', 'a', 'b', { k: 1 }]);
      });
    });

    it('filters, orders, limits and offsets', () => {
      withStorage((s) => {
        s.write((w) => {
          for (let i = 0; i < 10; i++) w.put('c', doc({ _id: `d${i}`, n: i % 4, m: i }));
        });
        const found = s.read((r) =>
          r.findValues(
            query('c', { where: gt('n', 0), orderBy: [{ expr: { kind: 'path', segments: ['n'], pos: POS }, direction: 'DESC' }], limit: 4, offset: 1 }),
          ),
        );
        expect(found.map((d) => d._id)).toEqual(['d7', 'd2', 'd6', 'd1']);
        expect(s.read((r) => r.findDocuments(query('c', { where: gt('m', 7) }))).map((d) => [d.id, d.txnId])).toEqual([
          ['d8', 1],
          ['d9', 1],
        ]);
      });
    });

    it('counts the live documents matching a condition, ignoring order, limit and offset', () => {
      withStorage((s) => {
        s.write((w) => {
          for (let i = 0; i < 10; i++) w.put('c', doc({ _id: `d${i}`, n: i }));
          w.put('c', { id: 'gone', value: null, meta: META, txnId: 2 });
        });
        expect(s.read((r) => r.count(query('c')))).toBe(10);
        expect(s.read((r) => r.count(query('c', { where: gt('n', 6), limit: 1, offset: 1 })))).toBe(3);
        expect(s.read((r) => r.count(query('never')))).toBe(0);
      });
    });

    it('evicts matching live documents entirely, in _id order, and keeps tombstones', () => {
      withStorage((s) => {
        s.write((w) => {
          for (let i = 0; i < 6; i++) w.put('c', doc({ _id: `d${i}`, n: i }));
          w.put('c', { id: 'gone', value: null, meta: META, txnId: 2 });
        });
        const evicted = s.write((w) =>
          w.evict(query('c', { where: gt('n', 1), orderBy: [{ expr: { kind: 'path', segments: ['n'], pos: POS }, direction: 'DESC' }], limit: 3 })),
        );
        expect(evicted).toEqual(['d3', 'd4', 'd5']);
        expect(s.read((r) => r.get('c', 'd5'))).toBeUndefined();
        expect(s.read((r) => r.findValues(query('c'))).map((d) => d._id)).toEqual(['d0', 'd1', 'd2']);
        expect(s.write((w) => w.evict(query('c')))).toEqual(['d0', 'd1', 'd2']);
        expect(s.read((r) => r.get('c', 'gone'))?.value).toBeNull();
      });
    });

    it('compares ranges only between values of one type: a string TTL finds, counts and evicts only strings', () => {
      withStorage((s) => {
        const createdAt: JsonValue[] = [
          '2026-11-01T00:00:00.000Z',
          '2026-11-20T00:00:00.000Z',
          1700000000000,
          true,
          false,
          null,
          ['2026-11-01'],
          { at: '2026-11-01' },
        ];
        s.write((w) => {
          createdAt.forEach((value, i) => w.put('c', doc({ _id: `d${i}`, createdAt: value })));
          w.put('c', doc({ _id: 'missing' }));
        });
        const params = { ttl: '2026-11-18T00:00:00.000Z', lo: 1, hi: 2e12 };
        const ids = (condition: string): JsonValue[] =>
          s.read((r) => r.findValues(query('c', { where: parseCondition(condition), params }))).map((d) => d._id as JsonValue);
        expect(ids('createdAt <= :ttl')).toEqual(['d0']);
        expect(ids('NOT (createdAt > :ttl)')).toEqual(['d0']);
        expect(ids('createdAt BETWEEN :lo AND :hi')).toEqual(['d2']);
        expect(ids('createdAt > false')).toEqual(['d3']);
        expect(ids('createdAt >= [1]')).toEqual(['d6']);
        expect(ids('createdAt < null')).toEqual([]);
        expect(s.read((r) => r.count(query('c', { where: parseCondition('createdAt <= :ttl'), params })))).toBe(1);
        expect(s.write((w) => w.evict(query('c', { where: parseCondition('createdAt <= :ttl'), params })))).toEqual(['d0']);
        expect(s.read((r) => r.findValues(query('c'))).map((d) => d._id)).toEqual(['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'missing']);
      });
    });

    it('answers edge cases as the reference evaluator: MISSING and null, doubles past 2^53, code-point order, nested paths, arrays, LIKE', () => {
      withStorage((s) => {
        const values: JsonValue[] = [
          null,
          false,
          true,
          2 ** 53 + 2,
          2 ** 60,
          -(2 ** 60),
          0.1,
          -1,
          'a',
          'a\u{1F600}',
          'a\uE000',
          'É',
          'a_b',
          [1, null],
          ['a'],
          { p: { q: 1 } },
        ];
        const docs: JsonObject[] = values.map((v, i) => ({ _id: `v${String(i).padStart(2, '0')}`, x: v, y: { p: v } }));
        docs.push({ _id: 'missing' });
        s.write((w) => {
          for (const d of docs) w.put('edge', doc(d));
        });
        const conditions = [
          'x IS NULL',
          'x IS MISSING',
          'NOT (x IS NULL)',
          'x = null',
          `x = ${2 ** 60}`,
          `x > ${2 ** 53}`,
          'x < 0',
          "x > 'a\uE000'",
          "x < 'a\u{1F600}'",
          "x LIKE 'a_'",
          "NOT (x LIKE 'a%')",
          'y.p.q = 1',
          'y.p[1] IS NULL',
          '1 IN x',
          'NOT (1 IN x)',
          "x IN ['a', 0.1, null]",
          'x BETWEEN -1 AND 1',
          'x = y.p',
          'NOT (x > false)',
        ];
        const ids = (text: string): JsonValue[] => s.read((r) => r.findValues(query('edge', { where: parseCondition(text) }))).map((d) => d._id as JsonValue);
        expect(ids('x IS NULL')).toEqual(['v00']);
        expect(ids('x IS MISSING')).toEqual(['missing']);
        expect(ids(`x > ${2 ** 53}`)).toEqual(['v03', 'v04']);
        expect(ids("x > 'a\uE000'")).toEqual(['v09', 'v11']); // U+1F600 and É sort above U+E000 by code point
        for (const text of conditions) {
          for (const direction of ['ASC', 'DESC'] as const) {
            const q = query('edge', { where: parseCondition(text), orderBy: [{ expr: { kind: 'path', segments: ['x'], pos: POS }, direction }] });
            const want = runQuery(
              docs,
              (d) => d,
              (d) => sortKey(d._id as JsonValue),
              q,
            ).map((d) => d._id);
            expect(
              s.read((r) => r.findValues(q)).map((d) => d._id),
              `${text} ORDER BY x ${direction}`,
            ).toEqual(want);
          }
        }
      });
    });

    it('undoes the whole write transaction when it throws', () => {
      withStorage((s) => {
        s.write((w) => w.put('c', doc({ _id: 'keep' })));
        expect(() =>
          s.write((w) => {
            w.put('c', doc({ _id: 'a' }));
            w.put('c', doc({ _id: 'keep', changed: true }));
            w.setClock({ lastTxnId: 9, lastHlc: '0000000000090000' });
            w.setSetting('k', 'v');
            throw new Error('boom');
          }),
        ).toThrow('boom');
        expect(s.read((r) => r.findValues(query('c')))).toEqual([{ _id: 'keep' }]);
        expect(s.read((r) => r.clock())).toEqual({ lastTxnId: 0, lastHlc: '' });
        expect(s.read((r) => r.setting('k'))).toBeUndefined();
      });
    });

    it('keeps the clock and settings it is given', () => {
      withStorage((s) => {
        s.write((w) => {
          w.setClock({ lastTxnId: 3, lastHlc: '0000000000030001' });
          w.setSetting('peer.key', 'abc');
        });
        expect(s.read((r) => [r.clock(), r.setting('peer.key')])).toEqual([{ lastTxnId: 3, lastHlc: '0000000000030001' }, 'abc']);
      });
    });

    it('keeps an open read transaction on its snapshot while a write commits', () => {
      withStorage((s) => {
        s.write((w) => w.put('c', doc({ _id: 'a', v: 1 })));
        const read = s.beginRead();
        try {
          s.write((w) => w.put('c', doc({ _id: 'a', v: 2 })));
          expect(read.reader.get('c', 'a')?.value).toEqual({ _id: 'a', v: 1 });
          expect(s.read((r) => r.get('c', 'a'))?.value).toEqual({ _id: 'a', v: 2 });
        } finally {
          read.end();
        }
      });
    });

    it('shows an open write only to its own writer, and nothing of it after a rollback', () => {
      withStorage((s) => {
        const tx = s.beginWrite();
        tx.writer.put('c', doc({ _id: 'a' }));
        expect(tx.writer.findValues(query('c'))).toEqual([{ _id: 'a' }]);
        expect(s.read((r) => r.findValues(query('c')))).toEqual([]);
        tx.rollback();
        expect(s.read((r) => r.findValues(query('c')))).toEqual([]);
        const again = s.beginWrite();
        again.writer.put('c', doc({ _id: 'b' }));
        again.commit();
        expect(s.read((r) => r.findValues(query('c')))).toEqual([{ _id: 'b' }]);
      });
    });

    it('lets several read transactions be open at once', () => {
      withStorage((s) => {
        s.write((w) => w.put('c', doc({ _id: 'a' })));
        const reads = [s.beginRead(), s.beginRead(), s.beginRead()];
        for (const r of reads) expect(r.reader.findValues(query('c'))).toEqual([{ _id: 'a' }]);
        for (const r of reads) r.end();
      });
    });

    it('refuses to open a write transaction inside another', () => {
      withStorage((s) => {
        expect(() => s.write(() => s.write(() => 1))).toThrow('already open');
      });
    });

    describe('changedSince', () => {
      it('pages through changes in txn order across several pages without gaps or repeats', () => {
        withStorage((s) => {
          const byTxn: Record<number, string[]> = { 1: ['m', 'a', 'z'], 2: ['q', 'b'], 3: ['k'], 4: ['y', 'c', 'x', 'd'] };
          for (const [txn, ids] of Object.entries(byTxn)) s.write((w) => ids.forEach((id) => w.put('c', doc({ _id: id }, Number(txn)))));
          const pages = s.read((r) => allPages(r, changes('c', 0, 4, 3)));
          expect(pages.map((p) => p.length)).toEqual([3, 3, 3, 1]);
          const flat = pages.flat();
          expect(flat.map(([, txn]) => txn)).toEqual([1, 1, 1, 2, 2, 3, 4, 4, 4, 4]);
          expect(new Set(flat.map(([id]) => id)).size).toBe(10);
          for (const [txn, ids] of Object.entries(byTxn)) {
            expect(
              flat
                .filter(([, t]) => t === Number(txn))
                .map(([id]) => id)
                .sort(),
            ).toEqual([...ids].sort());
          }
          // The order within a txn_id is stable: one page gives the same sequence.
          expect(s.read((r) => allPages(r, changes('c', 0, 4)))).toEqual([flat]);
        });
      });

      it('sets next only when more documents follow', () => {
        withStorage((s) => {
          s.write((w) => ['a', 'b', 'c'].forEach((id) => w.put('c', doc({ _id: id }))));
          expect(s.read((r) => r.changedSince(changes('c', 0, 1, 3))).next).toBeUndefined();
          expect(s.read((r) => r.changedSince(changes('c', 0, 1, 2))).next).toBeDefined();
          expect(s.read((r) => r.changedSince(changes('empty', 0, 1, 2)))).toEqual({ documents: [], next: undefined });
        });
      });

      it('includes tombstones', () => {
        withStorage((s) => {
          s.write((w) => {
            w.put('c', doc({ _id: 'live' }, 1));
            w.put('c', { id: 'gone', value: null, meta: { ...META, d: ['0000000000020000' as Hlc, 'peer'] }, txnId: 2 });
          });
          const page = s.read((r) => r.changedSince(changes('c', 0, 2)));
          expect(page.documents).toEqual([doc({ _id: 'live' }, 1), { id: 'gone', value: null, meta: { ...META, d: ['0000000000020000', 'peer'] }, txnId: 2 }]);
        });
      });

      it('excludes txn ids outside (after, upto]', () => {
        withStorage((s) => {
          for (let txn = 1; txn <= 6; txn++) s.write((w) => w.put('c', doc({ _id: `t${txn}` }, txn)));
          expect(s.read((r) => allPages(r, changes('c', 2, 4))).flat()).toEqual([
            ['t3', 3],
            ['t4', 4],
          ]);
          expect(s.read((r) => allPages(r, changes('c', 4, 4))).flat()).toEqual([]);
          expect(s.read((r) => allPages(r, changes('c', 6, 9))).flat()).toEqual([]);
          expect(s.read((r) => allPages(r, changes('c', 0, 1, 1))).flat()).toEqual([['t1', 1]]);
        });
      });

      it('excludes other collections', () => {
        withStorage((s) => {
          s.write((w) => {
            w.put('a', doc({ _id: 'in-a' }));
            w.put('b', doc({ _id: 'in-b' }));
            w.put('ab', doc({ _id: 'in-ab' }));
          });
          expect(s.read((r) => allPages(r, changes('a', 0, 1, 1))).flat()).toEqual([['in-a', 1]]);
        });
      });

      it('does not return an evicted document', () => {
        withStorage((s) => {
          s.write((w) => ['a', 'b', 'c'].forEach((id, n) => w.put('c', doc({ _id: id, n }))));
          s.write((w) => w.evict(query('c', { where: gt('n', 0) })));
          expect(s.read((r) => allPages(r, changes('c', 0, 2))).flat()).toEqual([['a', 1]]);
        });
      });

      it('moves a document rewritten by a later txn past the cursor: it appears once, at its new txn_id, when upto allows', () => {
        withStorage((s) => {
          s.write((w) => ['a', 'b', 'c'].forEach((id) => w.put('c', doc({ _id: id, v: 1 }, 1))));
          const first = s.read((r) => r.changedSince(changes('c', 0, 2, 1)));
          const [seen] = first.documents.map((d) => d.id);
          const rewritten = ['a', 'b', 'c'].find((id) => id !== seen) as string;
          const untouched = ['a', 'b', 'c'].find((id) => id !== seen && id !== rewritten) as string;
          s.write((w) => w.put('c', doc({ _id: rewritten, v: 2 }, 2)));

          // upto 2 takes in the rewrite: the document comes once, after the cursor, with its new value.
          const rest = s.read((r) => {
            const out: StoredDocument[] = [];
            let cursor = first.next;
            while (cursor !== undefined) {
              const page = r.changedSince({ ...changes('c', 0, 2, 1), cursor });
              out.push(...page.documents);
              cursor = page.next;
            }
            return out;
          });
          expect(rest.map((d) => [d.id, d.txnId])).toEqual([
            [untouched, 1],
            [rewritten, 2],
          ]);
          expect(rest[1]?.value).toEqual({ _id: rewritten, v: 2 });

          // upto 1 does not: the rewrite is left to the next update, from after 1.
          const fromSnapshot = s.read((r) => r.changedSince({ ...changes('c', 0, 1, 1), cursor: first.next }));
          expect(fromSnapshot.documents.map((d) => d.id)).toEqual([untouched]);
          expect(fromSnapshot.next).toBeUndefined();
          expect(s.read((r) => allPages(r, changes('c', 1, 2))).flat()).toEqual([[rewritten, 2]]);
        });
      });

      it('gives one document a page with limit 1', () => {
        withStorage((s) => {
          s.write((w) => ['a', 'b'].forEach((id) => w.put('c', doc({ _id: id }, 1))));
          s.write((w) => w.put('c', doc({ _id: 'c' }, 2)));
          const pages = s.read((r) => allPages(r, changes('c', 0, 2, 1)));
          expect(pages.map((p) => p.length)).toEqual([1, 1, 1]);
          expect(
            pages
              .flat()
              .map(([id]) => id)
              .sort(),
          ).toEqual(['a', 'b', 'c']);
          expect(pages.flat().map(([, txn]) => txn)).toEqual([1, 1, 2]);
        });
      });

      it('refuses a limit below 1', () => {
        withStorage((s) => {
          expect(() => s.read((r) => r.changedSince(changes('c', 0, 1, 0)))).toThrow(RangeError);
        });
      });

      it('shows an open write its own changes and readers only committed ones', () => {
        withStorage((s) => {
          s.write((w) => w.put('c', doc({ _id: 'a' }, 1)));
          const tx = s.beginWrite();
          try {
            tx.writer.put('c', doc({ _id: 'b' }, 2));
            expect(allPages(tx.writer, changes('c', 0, 2, 1)).flat()).toEqual([
              ['a', 1],
              ['b', 2],
            ]);
            expect(s.read((r) => allPages(r, changes('c', 0, 2))).flat()).toEqual([['a', 1]]);
          } finally {
            tx.rollback();
          }
        });
      });
    });

    describe('reapTombstones', () => {
      const tombstone = (id: JsonValue, deletedAt: string, txnId: number): StoredDocument => ({
        id,
        value: null,
        meta: { c: ['0000000000010000' as Hlc, 'peer'], d: [deletedAt as Hlc, 'peer'] },
        txnId,
      });
      const OLD = '0000000000020000';
      const CUT = '0000000000030000';
      const NEW = '0000000000040000';

      it('removes the tombstones deleted at or before the cut, in every collection, and never a live document', () => {
        withStorage((s) => {
          s.write((w) => {
            w.put('b', tombstone('x', OLD, 3));
            w.put('a', tombstone(2, CUT, 4));
            w.put('a', tombstone(1, OLD, 5));
            w.put('a', tombstone('late', NEW, 6));
            w.put('a', doc({ _id: 'live' }, 7));
          });
          const reaped = s.write((w) => w.reapTombstones({ deletedUpTo: CUT }));
          expect(reaped).toEqual([
            { collection: 'a', id: 1, txnId: 5 },
            { collection: 'a', id: 2, txnId: 4 },
            { collection: 'b', id: 'x', txnId: 3 },
          ]);
          expect(s.read((r) => [r.get('a', 1), r.get('a', 2), r.get('b', 'x')])).toEqual([undefined, undefined, undefined]);
          expect(s.read((r) => r.get('a', 'late'))?.value).toBeNull();
          expect(s.read((r) => r.findValues(query('a')))).toEqual([{ _id: 'live' }]);
          expect(s.read((r) => r.collections())).toEqual([{ name: 'a', documents: 1, tombstones: 1 }]);
          expect(s.read((r) => allPages(r, changes('a', 0, 10)).flat())).toEqual([
            ['late', 6],
            ['live', 7],
          ]);
        });
      });

      it('keeps the tombstones committed after uptoTxnId', () => {
        withStorage((s) => {
          s.write((w) => {
            w.put('a', tombstone('held', OLD, 2));
            w.put('a', tombstone('not-yet', OLD, 3));
          });
          expect(s.write((w) => w.reapTombstones({ deletedUpTo: CUT, uptoTxnId: 2 }))).toEqual([{ collection: 'a', id: 'held', txnId: 2 }]);
          expect(s.read((r) => r.get('a', 'not-yet'))?.txnId).toBe(3);
        });
      });

      it('reaps nothing when no tombstone is old enough, and is undone with its transaction', () => {
        withStorage((s) => {
          s.write((w) => w.put('a', tombstone('t', NEW, 1)));
          expect(s.write((w) => w.reapTombstones({ deletedUpTo: CUT }))).toEqual([]);
          s.write((w) => w.put('a', tombstone('t', OLD, 2)));
          expect(() =>
            s.write((w) => {
              expect(w.reapTombstones({ deletedUpTo: CUT })).toHaveLength(1);
              expect(w.get('a', 't')).toBeUndefined();
              throw new Error('undo');
            }),
          ).toThrow('undo');
          expect(s.read((r) => r.get('a', 't'))?.txnId).toBe(2);
        });
      });
    });
  });
}
