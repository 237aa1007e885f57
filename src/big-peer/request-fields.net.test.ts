/**
 * The top-level fields of store/execute and store/write bodies over real HTTP: a field the
 * endpoint does not take is a 400 (not silently ignored), and `__proto__` as a named argument,
 * sent as raw JSON (where JSON.parse makes it an own key), is a 400 `query/arguments-invalid`.
 * Nothing is written in either case.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { post, startTestPeer, type TestPeer } from '../testing/big-peer/test-helpers.ts';

const EXECUTE = '/api/v4/store/execute';
const WRITE = '/api/v4/store/write';

/** The store/execute answer of an error. */
const failure = (queryType: string, code: string, description: string) => ({
  transactionId: null,
  queryType,
  items: [],
  mutatedDocumentIds: [],
  error: { code, description },
  warnings: [],
  totalWarningsCount: 0,
});

describe('store/execute and store/write request fields', () => {
  let t: TestPeer;
  beforeEach(async () => {
    t = await startTestPeer();
  });
  afterEach(() => t.close());

  const documents = async (): Promise<unknown[]> => (await t.peer.sync.store.execute('SELECT * FROM orders')).items;

  describe('store/execute', () => {
    it('refuses a body with an unknown top-level field with 400 http/bad-request naming it, at both paths, and runs nothing', async () => {
      const lastTxnId = t.peer.sync.store.lastTxnId;
      for (const path of [EXECUTE, '/store/execute']) {
        const res = await post(`${t.url}${path}`, { statement: "INSERT INTO orders DOCUMENTS ({_id: 'o1'})", args: {}, arg: { x: 1 } });
        expect(res.status).toBe(400);
        expect(res.json).toEqual(failure('unknown', 'http/bad-request', 'unknown field "arg" in the body: it takes "statement" and "args"'));
      }
      expect(await documents()).toEqual([]);
      expect(t.peer.sync.store.lastTxnId).toBe(lastTxnId);
    });

    it('names every unknown field, and refuses a top-level __proto__ sent as raw JSON', async () => {
      const two = await post(`${t.url}${EXECUTE}`, { statement: 'SELECT * FROM orders', txnId: 3, parameters: {} });
      expect(two.status).toBe(400);
      expect(two.json.error).toEqual({
        code: 'http/bad-request',
        description: 'unknown fields "txnId", "parameters" in the body: it takes "statement" and "args"',
      });
      const proto = await post(`${t.url}${EXECUTE}`, '{"statement": "SELECT * FROM orders", "__proto__": {"args": {}}}');
      expect(proto.status).toBe(400);
      expect(proto.json.error).toEqual({ code: 'http/bad-request', description: 'unknown field "__proto__" in the body: it takes "statement" and "args"' });
    });

    it('still takes {statement} and {statement, args}', async () => {
      expect((await post(`${t.url}${EXECUTE}`, { statement: 'SELECT * FROM orders' })).status).toBe(200);
      expect((await post(`${t.url}${EXECUTE}`, { statement: 'SELECT * FROM orders WHERE _id = :id', args: { id: 'x' } })).status).toBe(200);
    });

    it('refuses __proto__ as a named argument, sent as raw JSON, with 400 query/arguments-invalid, and writes nothing', async () => {
      const res = await post(
        `${t.url}${EXECUTE}`,
        '{"statement": "INSERT INTO orders DOCUMENTS (:doc)", "args": {"doc": {"_id": "o1"}, "__proto__": {"polluted": true}}}',
      );
      expect(res.status).toBe(400);
      expect(res.json).toEqual(
        failure(
          'mutation',
          'query/arguments-invalid',
          'argument :__proto__ has a name that is refused: JavaScript objects cannot hold "__proto__" as plain data; use another name',
        ),
      );
      expect(await documents()).toEqual([]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe('store/write', () => {
    const remove = { method: 'remove', collection: 'orders', query: '_id == $args.id' };
    beforeEach(async () => {
      await t.peer.sync.store.execute("INSERT INTO orders DOCUMENTS ({_id: 'o1'})");
    });

    it('refuses a body with an unknown top-level field with 400 http/bad-request naming it, and writes nothing', async () => {
      const res = await post(`${t.url}${WRITE}`, { args: { id: 'o1' }, commands: [remove], command: [] });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: { code: 'http/bad-request', message: 'unknown field "command" in the body: it takes "args" and "commands"' } });
      expect(await documents()).toEqual([{ _id: 'o1' }]);
    });

    it('refuses a top-level __proto__ sent as raw JSON', async () => {
      const res = await post(`${t.url}${WRITE}`, `{"commands": ${JSON.stringify([remove])}, "args": {"id": "o1"}, "__proto__": {"x": 1}}`);
      expect(res.status).toBe(400);
      expect(res.json.error).toEqual({ code: 'http/bad-request', message: 'unknown field "__proto__" in the body: it takes "args" and "commands"' });
      expect(await documents()).toEqual([{ _id: 'o1' }]);
    });

    it('refuses __proto__ as a name in args, sent as raw JSON, with 400 query/arguments-invalid, and writes nothing', async () => {
      const res = await post(`${t.url}${WRITE}`, `{"args": {"id": "o1", "__proto__": "o1"}, "commands": ${JSON.stringify([remove])}}`);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        error: {
          code: 'query/arguments-invalid',
          message: '$args.__proto__ has a name that is refused: JavaScript objects cannot hold "__proto__" as plain data; use another name',
        },
      });
      expect(await documents()).toEqual([{ _id: 'o1' }]);
    });

    it('still takes {commands} and {args, commands}', async () => {
      const upsert = { method: 'upsert', collection: 'orders', id: 'o2', value: { n: 1 } };
      expect((await post(`${t.url}${WRITE}`, { commands: [upsert] })).status).toBe(200);
      expect((await post(`${t.url}${WRITE}`, { args: { id: 'o1' }, commands: [remove] })).status).toBe(200);
      expect(await documents()).toEqual([{ _id: 'o2', n: 1 }]);
    });
  });
});
