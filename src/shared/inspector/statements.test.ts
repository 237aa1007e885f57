import { describe, expect, it } from 'vitest';
import {
  cancelSubscriptionCall,
  deleteDocument,
  diffDocument,
  EditError,
  evictDocument,
  formatPath,
  insertDocument,
  parameterName,
  parsePath,
  quoteName,
  registerSubscriptionCall,
  selectCollection,
  subscriptionStatement,
  updateDocument,
} from './statements.ts';

describe('quoteName', () => {
  it('writes plain identifiers bare', () => {
    expect(quoteName('orders')).toBe('orders');
    expect(quoteName('_id')).toBe('_id');
    expect(quoteName('$meta')).toBe('$meta');
    expect(quoteName('flightNo2')).toBe('flightNo2');
    expect(quoteName('città')).toBe('città');
  });

  it('puts reserved words and contextual keywords in backticks, whatever their case', () => {
    expect(quoteName('order')).toBe('`order`');
    expect(quoteName('Select')).toBe('`Select`');
    expect(quoteName('collection')).toBe('`collection`');
    expect(quoteName('set')).toBe('`set`');
    expect(quoteName('values')).toBe('`values`');
  });

  it('puts names with odd characters in backticks and doubles a backtick inside', () => {
    expect(quoteName('odd name')).toBe('`odd name`');
    expect(quoteName('2fa')).toBe('`2fa`');
    expect(quoteName('a-b')).toBe('`a-b`');
    expect(quoteName('tick`tock')).toBe('`tick``tock`');
  });

  it('refuses names no statement can hold', () => {
    expect(() => quoteName('')).toThrow(RangeError);
    expect(() => quoteName('__proto__')).toThrow(RangeError);
    expect(() => quoteName('bad\uD800')).toThrow(RangeError);
  });
});

describe('formatPath', () => {
  it('joins field names with dots and array indexes with brackets', () => {
    expect(formatPath(['address', 'city'])).toBe('address.city');
    expect(formatPath(['items', 0, 'sku'])).toBe('items[0].sku');
    expect(formatPath(['order', 'total'])).toBe('`order`.total');
    expect(formatPath(['a', 'odd key'])).toBe('a.`odd key`');
  });

  it('refuses a path that starts with an index', () => {
    expect(() => formatPath([0, 'a'])).toThrow(RangeError);
  });
});

describe('parsePath', () => {
  it('reads the segments of a path as DQL writes it', () => {
    expect(parsePath('a.b')).toEqual(['a', 'b']);
    expect(parsePath('items[0].sku')).toEqual(['items', 0, 'sku']);
    expect(parsePath('`order`.`odd ``key`')).toEqual(['order', 'odd `key']);
    expect(parsePath("m['it''s']")).toEqual(['m', "it's"]);
    expect(parsePath('set')).toEqual(['set']);
  });

  it('gives back every path formatPath writes', () => {
    for (const path of [['a'], ['order', 'x'], ['a', 'odd key', 'z'], ['tick`tock'], ['items', 3, 'x']]) expect(parsePath(formatPath(path))).toEqual(path);
  });

  it('refuses what is not a path', () => {
    expect(parsePath('')).toBeUndefined();
    expect(parsePath('a.')).toBeUndefined();
    expect(parsePath('a b')).toBeUndefined();
    expect(parsePath('`open')).toBeUndefined();
    expect(parsePath('[0]')).toBeUndefined();
  });
});

describe('the statements of the UI actions', () => {
  it('opens a collection with SELECT *', () => {
    expect(selectCollection('orders')).toEqual({ statement: 'SELECT * FROM orders', args: {} });
    expect(selectCollection('group')).toEqual({ statement: 'SELECT * FROM `group`', args: {} });
  });

  it('inserts one document through the :doc argument', () => {
    expect(insertDocument('orders', { total: 5 })).toEqual({ statement: 'INSERT INTO orders DOCUMENTS (:doc)', args: { doc: { total: 5 } } });
  });

  it('deletes and evicts by _id as a named argument', () => {
    expect(deleteDocument('orders', 'o1')).toEqual({ statement: 'DELETE FROM orders WHERE _id = :id', args: { id: 'o1' } });
    expect(evictDocument('my orders', { a: 1 })).toEqual({ statement: 'EVICT FROM `my orders` WHERE _id = :id', args: { id: { a: 1 } } });
  });
});

describe('diffDocument', () => {
  it('finds nothing to change in an equal document, whatever its key order', () => {
    expect(diffDocument({ _id: 'a', x: { p: 1, q: [1, 2] } }, { x: { q: [1, 2], p: 1 }, _id: 'a' })).toEqual([]);
  });

  it('sets changed and new fields and unsets removed ones', () => {
    expect(diffDocument({ _id: 'a', status: 'open', draft: true }, { _id: 'a', status: 'paid', paidAt: '2026-01-01' })).toEqual([
      { kind: 'set', path: ['status'], value: 'paid' },
      { kind: 'unset', path: ['draft'] },
      { kind: 'set', path: ['paidAt'], value: '2026-01-01' },
    ]);
  });

  it('walks into nested objects so that untouched siblings keep their merge stamps', () => {
    expect(diffDocument({ _id: 1, address: { city: 'Oslo', zip: '0150' } }, { _id: 1, address: { city: 'Bergen', zip: '0150' } })).toEqual([
      { kind: 'set', path: ['address', 'city'], value: 'Bergen' },
    ]);
  });

  it('sets an array whole, since DQL cannot unset one element', () => {
    expect(diffDocument({ _id: 1, tags: ['a', 'b'] }, { _id: 1, tags: ['a'] })).toEqual([{ kind: 'set', path: ['tags'], value: ['a'] }]);
  });

  it('sets a field whose type changed', () => {
    expect(diffDocument({ _id: 1, v: { a: 1 } }, { _id: 1, v: 3 })).toEqual([{ kind: 'set', path: ['v'], value: 3 }]);
    expect(diffDocument({ _id: 1, v: null }, { _id: 1, v: { a: 1 } })).toEqual([{ kind: 'set', path: ['v'], value: { a: 1 } }]);
  });

  it('increments a counter by the difference instead of setting it', () => {
    expect(diffDocument({ _id: 1, visits: 10 }, { _id: 1, visits: 7 }, { counters: new Set(['visits']) })).toEqual([
      { kind: 'increment', path: ['visits'], by: -3 },
    ]);
  });

  it('finds a counter written without backticks where the inspector would add them', () => {
    expect(diffDocument({ _id: 1, set: 1 }, { _id: 1, set: 2 }, { counters: new Set(['set']) })).toEqual([{ kind: 'increment', path: ['set'], by: 1 }]);
  });

  it('sets a counter that became something other than a number', () => {
    expect(diffDocument({ _id: 1, visits: 10 }, { _id: 1, visits: 'many' }, { counters: new Set(['visits']) })).toEqual([
      { kind: 'set', path: ['visits'], value: 'many' },
    ]);
  });

  it('refuses a changed _id', () => {
    expect(() => diffDocument({ _id: 'a' }, { _id: 'b' })).toThrow(EditError);
    expect(() => diffDocument({ _id: 'a' }, {})).toThrow(EditError);
  });

  it('sets the whole object around a changed key that no path can name', () => {
    expect(diffDocument({ _id: 1, m: { '': 1, a: 1 } }, { _id: 1, m: { '': 2, a: 1 } })).toEqual([{ kind: 'set', path: ['m'], value: { '': 2, a: 1 } }]);
  });

  it('refuses a changed top-level key that no path can name', () => {
    expect(() => diffDocument({ _id: 1 }, { _id: 1, '': 2 })).toThrow(EditError);
  });
});

describe('parameterName', () => {
  it('names a parameter after its path and keeps names unique', () => {
    const taken = new Set(['id']);
    expect(parameterName(['address', 'city'], taken)).toBe('address_city');
    expect(parameterName(['id'], taken)).toBe('id_2');
    expect(parameterName(['items', 0], taken)).toBe('items_0');
    expect(parameterName(['odd key!'], taken)).toBe('odd_key_');
    expect(parameterName(['2fa'], taken)).toBe('v_2fa');
    expect(parameterName(['é'], taken)).toBe('v');
    expect(parameterName(['é'], taken)).toBe('v_2');
  });
});

describe('updateDocument', () => {
  it('writes one UPDATE by _id with SET, UNSET and APPLY clauses and every value as an argument', () => {
    const original = { _id: 'o1', status: 'open', draft: true, visits: 2, address: { city: 'Oslo' } };
    const edited = { _id: 'o1', status: 'paid', visits: 5, address: { city: 'Bergen' } };
    expect(updateDocument('orders', original, edited, { counters: new Set(['visits']) })).toEqual({
      statement: [
        'UPDATE orders',
        '  SET status = :status, address.city = :address_city',
        '  UNSET draft',
        '  APPLY visits PN_INCREMENT BY :visits',
        '  WHERE _id = :id',
      ].join('\n'),
      args: { id: 'o1', status: 'paid', address_city: 'Bergen', visits: 3 },
    });
  });

  it('answers undefined when nothing changed', () => {
    expect(updateDocument('orders', { _id: 1, a: 1 }, { a: 1, _id: 1 })).toBeUndefined();
  });

  it('quotes the collection and reserved field names', () => {
    expect(updateDocument('order', { _id: 1, order: 1 }, { _id: 1, order: 2 })).toEqual({
      statement: 'UPDATE `order`\n  SET `order` = :order\n  WHERE _id = :id',
      args: { id: 1, order: 2 },
    });
  });
});

describe('subscriptions', () => {
  it('builds the SELECT a subscription registers, leaving out the parts not given', () => {
    expect(subscriptionStatement({ collection: 'orders' })).toBe('SELECT * FROM orders');
    expect(subscriptionStatement({ collection: 'orders', where: '  locationId = :loc ', orderBy: 'createdAt DESC', limit: 10, offset: 0 })).toBe(
      'SELECT * FROM orders WHERE locationId = :loc ORDER BY createdAt DESC LIMIT 10 OFFSET 0',
    );
  });

  it('shows the SDK calls of a registration and a cancellation', () => {
    expect(registerSubscriptionCall('SELECT * FROM orders', {})).toBe('sync.store.registerSubscription("SELECT * FROM orders")');
    expect(registerSubscriptionCall('SELECT * FROM orders WHERE a = :a', { a: 1 })).toBe(
      'sync.store.registerSubscription("SELECT * FROM orders WHERE a = :a", {"a":1})',
    );
    expect(cancelSubscriptionCall(3)).toBe('subscription.cancel() // subscription #3');
  });
});
