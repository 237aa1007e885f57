import { describe, expect, it } from 'vitest';
import type { SubscriptionQuery } from '../subscriptions.ts';
import { MAX_CHUNK_DOCS, checkSessionMessage, decodeSessionFrame, queryKey } from './messages.ts';
import type { SessionMessage } from './messages.ts';

const H1 = '0000018f2a3b4c00';
const H2 = '0000018f2a3b4c01';
const COLOR = JSON.stringify(['color']);
const TAGS = JSON.stringify(['tags']);
const MILES = JSON.stringify(['odometer', 0]);
const RED: SubscriptionQuery = { expr: "color == 'red'", order_by: ['make ASC'], limit: 10, offset: 2 };

/** The validated value of an accepted message; fails the test with the reason otherwise. */
function accepted(value: unknown): SessionMessage {
  const check = checkSessionMessage(value);
  if (!check.ok) throw new Error(`refused: ${check.reason}`);
  return check.value;
}

/** The reason a message is refused; fails the test if it is accepted. */
function refusal(value: unknown): string {
  const check = checkSessionMessage(value);
  if (check.ok) throw new Error(`accepted: ${JSON.stringify(check.value)}`);
  return check.reason;
}

/** The reason a frame's text is refused. */
function frameRefusal(text: string): string {
  const check = decodeSessionFrame(text);
  if (check.ok) throw new Error(`accepted: ${JSON.stringify(check.value)}`);
  return check.reason;
}

function subscription(): Record<string, unknown> {
  return {
    type: 'subscription',
    set: { everything: false, queries: { cars: [{ ...RED, order_by: [...RED.order_by] }], people: [{ expr: 'true', order_by: [] }] } },
    version: 3,
    progress: { [queryKey('cars', RED)]: 41, [queryKey('people', { expr: 'true', order_by: [] })]: 0 },
  };
}

function liveDoc(): Record<string, unknown> {
  return {
    collection: 'cars',
    id: 'a',
    value: { _id: 'a', color: 'red', tags: ['x'], odometer: [12.5] },
    meta: {
      c: [H1, 'pk-a'],
      f: { [COLOR]: [H2, 'pk-b'] },
      r: { [TAGS]: [H1, 'pk-a'] },
      n: { [MILES]: { s: [H1, 'pk-a'], t: { 'pk-a': [15, 3], 'pk-b': [0.5, 0] } } },
    },
  };
}

function tombstone(): Record<string, unknown> {
  return { collection: 'cars', id: { make: 'vw', n: 7 }, value: null, meta: { c: [H1, 'pk-a'], d: [H2, 'pk-b'] } };
}

function update(docs: unknown[] = [liveDoc(), tombstone()]): Record<string, unknown> {
  return {
    type: 'update',
    update: 2,
    chunk: 3,
    since_index: 10,
    upto: 20,
    subscription_version: 3,
    docs,
    notices: [
      ['cars', 'gone'],
      ['cars', { make: 'vw', n: 8 }],
    ],
    progress: { [queryKey('cars', RED)]: 20, '*': 20 },
  };
}

/** An update of one document whose metadata is `meta`. */
function updateWithMeta(meta: unknown): Record<string, unknown> {
  return update([{ collection: 'cars', id: 'a', value: { _id: 'a' }, meta }]);
}

/** A value as JSON.parse makes it: `__proto__` in the text becomes an own key, as it does in a received frame. */
function parsed(text: string): unknown {
  return JSON.parse(text) as unknown;
}

describe('checkSessionMessage accepts', () => {
  it('a subscription with its version and progress, and returns only its fields', () => {
    const input = subscription();
    input.extra = 'dropped';
    (input.set as Record<string, unknown>).extra = 'dropped';
    const queries = (input.set as { queries: Record<string, Record<string, unknown>[]> }).queries;
    (queries.cars as Record<string, unknown>[])[0]!.note = 'dropped';
    expect(accepted(input)).toStrictEqual({
      type: 'subscription',
      set: {
        everything: false,
        queries: { cars: [{ expr: "color == 'red'", order_by: ['make ASC'], limit: 10, offset: 2 }], people: [{ expr: 'true', order_by: [] }] },
      },
      version: 3,
      progress: { [queryKey('cars', RED)]: 41, [queryKey('people', { expr: 'true', order_by: [] })]: 0 },
    });
  });

  it('an everything subscription with no queries and empty progress', () => {
    expect(accepted({ type: 'subscription', set: { everything: true, queries: {} }, version: 1, progress: {} })).toStrictEqual({
      type: 'subscription',
      set: { everything: true, queries: {} },
      version: 1,
      progress: {},
    });
  });

  it('an update with a live document, a tombstone, meta with c, d, f, r and n, notices and progress, and returns only its fields', () => {
    const live = liveDoc();
    live.extra = 'dropped';
    const counter = ((live.meta as Record<string, unknown>).n as Record<string, Record<string, unknown>>)[MILES]!;
    counter.extra = 'dropped';
    const input = update([live, tombstone()]);
    input.extra = 'dropped';
    expect(accepted(input)).toStrictEqual({
      type: 'update',
      update: 2,
      chunk: 3,
      since_index: 10,
      upto: 20,
      subscription_version: 3,
      docs: [
        {
          collection: 'cars',
          id: 'a',
          value: { _id: 'a', color: 'red', tags: ['x'], odometer: [12.5] },
          meta: {
            c: [H1, 'pk-a'],
            f: { [COLOR]: [H2, 'pk-b'] },
            r: { [TAGS]: [H1, 'pk-a'] },
            n: { [MILES]: { s: [H1, 'pk-a'], t: { 'pk-a': [15, 3], 'pk-b': [0.5, 0] } } },
          },
        },
        { collection: 'cars', id: { make: 'vw', n: 7 }, value: null, meta: { c: [H1, 'pk-a'], d: [H2, 'pk-b'] } },
      ],
      notices: [
        ['cars', 'gone'],
        ['cars', { make: 'vw', n: 8 }],
      ],
      progress: { [queryKey('cars', RED)]: 20, '*': 20 },
    });
  });

  it('an update chunk with no documents, no notices and no progress, without adding those fields', () => {
    const value = accepted({ type: 'update', update: 1, chunk: 1, since_index: 0, upto: 0, subscription_version: 1, docs: [] });
    expect(value).toStrictEqual({ type: 'update', update: 1, chunk: 1, since_index: 0, upto: 0, subscription_version: 1, docs: [] });
    expect(Object.keys(value)).not.toContain('notices');
    expect(Object.keys(value)).not.toContain('progress');
  });

  it('an update of exactly MAX_CHUNK_DOCS documents', () => {
    const docs = Array.from({ length: MAX_CHUNK_DOCS }, (_, i) => ({ collection: 'cars', id: i, value: { _id: i }, meta: { c: [H1, 'pk-a'] } }));
    const value = accepted(update(docs));
    expect(value.type === 'update' && value.docs.length).toBe(MAX_CHUNK_DOCS);
  });

  it('an update whose upto equals its since_index', () => {
    expect(accepted({ ...update(), since_index: 20, upto: 20 })).toMatchObject({ since_index: 20, upto: 20 });
  });

  it('a want, and returns only its fields', () => {
    expect(
      accepted({
        type: 'want',
        docs: [
          ['cars', 'a'],
          ['cars', { make: 'vw', n: 7 }],
        ],
        extra: 'dropped',
      }),
    ).toStrictEqual({
      type: 'want',
      docs: [
        ['cars', 'a'],
        ['cars', { make: 'vw', n: 7 }],
      ],
    });
  });

  it('a subscription carrying the reap horizon of a Big Peer', () => {
    expect(accepted({ ...subscription(), reaped: { before: H1, upto: 42 } })).toMatchObject({ reaped: { before: H1, upto: 42 } });
  });

  it('a reconcile and its answer, and returns only their fields', () => {
    expect(accepted({ type: 'reconcile', round: 1, docs: [['cars', 'a']], extra: 'dropped' })).toStrictEqual({
      type: 'reconcile',
      round: 1,
      docs: [['cars', 'a']],
    });
    expect(accepted({ type: 'reconciled', round: 2, absent: [], extra: 'dropped' })).toStrictEqual({ type: 'reconciled', round: 2, absent: [] });
  });

  it('an ack, and returns only its fields', () => {
    expect(accepted({ type: 'ack', update: 2, chunk: 3, merged: 499, refused: 1, extra: 'dropped' })).toStrictEqual({
      type: 'ack',
      update: 2,
      chunk: 3,
      merged: 499,
      refused: 1,
    });
  });

  it('an error, and returns only its code and message', () => {
    expect(accepted({ type: 'error', code: 'malformed', message: 'update.chunk must be an integer of at least 1', extra: 'dropped' })).toStrictEqual({
      type: 'error',
      code: 'malformed',
      message: 'update.chunk must be an integer of at least 1',
    });
  });

  it('an error without a string message, as an empty message, and cuts a long message to 4096 characters', () => {
    expect(accepted({ type: 'error', code: 'busy' })).toStrictEqual({ type: 'error', code: 'busy', message: '' });
    expect(accepted({ type: 'error', code: 'busy', message: 42 })).toStrictEqual({ type: 'error', code: 'busy', message: '' });
    const long = accepted({ type: 'error', code: 'busy', message: 'x'.repeat(10_000) });
    expect(long.type === 'error' && long.message).toBe('x'.repeat(4096));
  });
});

describe('decodeSessionFrame', () => {
  it('decodes and validates a frame of each message type', () => {
    for (const message of [
      subscription(),
      update(),
      { type: 'want', docs: [['cars', 'a']] },
      { type: 'ack', update: 1, chunk: 1, merged: 0, refused: 0 },
      { type: 'error', code: 'c', message: 'm' },
    ]) {
      const check = decodeSessionFrame(JSON.stringify(message));
      expect(check).toStrictEqual({ ok: true, value: accepted(message) });
    }
  });

  it('refuses a frame that is not JSON', () => {
    for (const text of ['', '{', "{'type': 'ack'}", 'ack', '{"type":"ack",}']) {
      expect(frameRefusal(text)).toBe('the frame is not JSON');
    }
  });

  it('refuses a frame that is JSON but not an object', () => {
    for (const text of ['null', '42', '"update"', 'true', '[]', '[{"type":"ack"}]']) {
      expect(frameRefusal(text)).toBe('the message must be a JSON object');
    }
  });

  it('refuses a counter tally of 1e999, which JSON.parse makes Infinity', () => {
    const text = JSON.stringify(updateWithMeta({ c: [H1, 'pk-a'], n: { [MILES]: { s: [H1, 'pk-a'], t: { 'pk-a': [1, 0] } } } })).replace('[1,0]', '[1e999,0]');
    expect(frameRefusal(text)).toContain('must be [increments, decrements], two finite numbers of at least 0');
  });
});

describe('checkSessionMessage refuses, naming the fault,', () => {
  it('a value that is not an object', () => {
    for (const value of [null, undefined, 1, 'ack', [], [{ type: 'ack' }]]) {
      expect(refusal(value)).toBe('the message must be a JSON object');
    }
  });

  it('an unknown or missing message type', () => {
    expect(refusal({ type: 'hello' })).toBe('unknown message type "hello"');
  });

  it('a reap horizon whose cut is not a hybrid clock time, a reconcile of round 0 or with too many documents', () => {
    expect(refusal({ ...subscription(), reaped: { before: 'yesterday', upto: 1 } })).toBe(
      'subscription.reaped.before must be a hybrid clock time of 16 hexadecimal digits',
    );
    expect(refusal({ ...subscription(), reaped: { before: H1, upto: -1 } })).toBe('subscription.reaped.upto must be an integer of at least 0');
    expect(refusal({ type: 'reconcile', round: 0, docs: [] })).toBe('reconcile.round must be an integer of at least 1');
    const many = Array.from({ length: MAX_CHUNK_DOCS + 1 }, (_, i) => ['cars', i]);
    expect(refusal({ type: 'reconciled', round: 1, absent: many })).toBe(`reconciled.absent has more than ${MAX_CHUNK_DOCS} entries`);
    expect(refusal({ type: 'Update' })).toBe('unknown message type "Update"');
    expect(refusal({ update: 1 })).toBe('unknown message type undefined');
  });

  it('an update whose value._id differs from its id', () => {
    const doc = liveDoc();
    (doc.value as Record<string, unknown>)._id = 'b';
    expect(refusal(update([doc]))).toBe('update.docs[0].value._id must equal update.docs[0].id');
    const second = liveDoc();
    (second.value as Record<string, unknown>)._id = 'b';
    expect(refusal(update([liveDoc(), second]))).toBe('update.docs[1].value._id must equal update.docs[1].id');
  });

  it('an update whose value has no _id, or an _id of another type', () => {
    const doc = liveDoc();
    delete (doc.value as Record<string, unknown>)._id;
    expect(refusal(update([doc]))).toBe('update.docs[0].value._id must equal update.docs[0].id');
    expect(refusal(update([{ ...liveDoc(), id: 1, value: { _id: '1' } }]))).toBe('update.docs[0].value._id must equal update.docs[0].id');
  });

  it('a document with a missing or null id', () => {
    const doc = tombstone();
    delete doc.id;
    expect(refusal(update([doc]))).toBe('update.docs[0].id is missing');
    expect(refusal(update([{ ...tombstone(), id: null }]))).toBe('update.docs[0].id is missing');
  });

  it('a document whose value is neither an object nor null, or whose collection is not a name', () => {
    expect(refusal(update([{ ...liveDoc(), value: ['a'] }]))).toBe('update.docs[0].value must be a JSON object');
    const doc = liveDoc();
    delete doc.value;
    expect(refusal(update([doc]))).toBe('update.docs[0].value must be a JSON object');
    expect(refusal(update([{ ...liveDoc(), collection: '' }]))).toBe('update.docs[0].collection must be a non-empty string of at most 1024 characters');
  });

  it('a stamp whose time is not 16 lowercase hexadecimal digits', () => {
    for (const hlc of ['0000018f2a3b4c0', '0000018f2a3b4c000', '0000018F2A3B4C00', '0000018f2a3b4c0g', `${H1}\n`, ` ${H1}`, 1234, null]) {
      expect(refusal(updateWithMeta({ c: [hlc, 'pk-a'] }))).toBe('update.docs[0].meta.c[0] must be a hybrid clock time of 16 hexadecimal digits');
    }
    expect(refusal(updateWithMeta({ c: [H1, 'pk-a'], d: ['later', 'pk-a'] }))).toBe(
      'update.docs[0].meta.d[0] must be a hybrid clock time of 16 hexadecimal digits',
    );
    expect(refusal(updateWithMeta({ c: [H1, 'pk-a'], n: { [MILES]: { s: ['x', 'pk-a'], t: {} } } }))).toBe(
      `update.docs[0].meta.n[${JSON.stringify(MILES)}].s[0] must be a hybrid clock time of 16 hexadecimal digits`,
    );
  });

  it('a stamp that is not a pair', () => {
    for (const c of [[H1], [H1, 'pk-a', 'pk-b'], [], H1, { 0: H1, 1: 'pk-a' }, null]) {
      expect(refusal(updateWithMeta({ c }))).toBe('update.docs[0].meta.c must be a stamp [hlc, writer]');
    }
    const meta = { c: [H1, 'pk-a'] };
    expect(refusal(updateWithMeta(undefined))).toBe('update.docs[0].meta must be a JSON object');
    expect(refusal(updateWithMeta({ ...meta, f: { [COLOR]: H1 } }))).toBe(`update.docs[0].meta.f[${JSON.stringify(COLOR)}] must be a stamp [hlc, writer]`);
    expect(refusal(updateWithMeta({ ...meta, r: { [TAGS]: [H1] } }))).toBe(`update.docs[0].meta.r[${JSON.stringify(TAGS)}] must be a stamp [hlc, writer]`);
  });

  it('a stamp whose writer is not a non-empty string', () => {
    expect(refusal(updateWithMeta({ c: [H1, ''] }))).toBe('update.docs[0].meta.c[1] must be a non-empty string of at most 1024 characters');
    expect(refusal(updateWithMeta({ c: [H1, 7] }))).toBe('update.docs[0].meta.c[1] must be a non-empty string of at most 1024 characters');
  });

  it('a path key in f, r or n that is not a JSON array path', () => {
    for (const key of ['color', '"color"', '[]', '{"color":1}', '[-1]', '[1.5]', '[null]', '[["color"]]', '']) {
      const where = `has a key that is not a JSON path: ${JSON.stringify(key)}`;
      expect(refusal(updateWithMeta({ c: [H1, 'pk-a'], f: { [key]: [H1, 'pk-a'] } }))).toBe(`update.docs[0].meta.f ${where}`);
      expect(refusal(updateWithMeta({ c: [H1, 'pk-a'], r: { [key]: [H1, 'pk-a'] } }))).toBe(`update.docs[0].meta.r ${where}`);
      expect(refusal(updateWithMeta({ c: [H1, 'pk-a'], n: { [key]: { s: [H1, 'pk-a'], t: {} } } }))).toBe(`update.docs[0].meta.n ${where}`);
    }
    expect(accepted(updateWithMeta({ c: [H1, 'pk-a'], f: { '["a",0,"b"]': [H1, 'pk-a'] } }))).toMatchObject({ type: 'update' });
  });

  it('a counter with a negative or non-finite tally, or a tally that is not a pair of numbers', () => {
    for (const pair of [
      [-1, 0],
      [0, -0.5],
      [Number.POSITIVE_INFINITY, 0],
      [0, Number.NEGATIVE_INFINITY],
      [Number.NaN, 0],
      [1],
      [1, 2, 3],
      ['1', 0],
      [null, 0],
      1,
    ]) {
      const meta = { c: [H1, 'pk-a'], n: { [MILES]: { s: [H1, 'pk-a'], t: { 'pk-a': pair } } } };
      expect(refusal(updateWithMeta(meta))).toBe(
        `update.docs[0].meta.n[${JSON.stringify(MILES)}].t.pk-a must be [increments, decrements], two finite numbers of at least 0`,
      );
    }
  });

  it('a counter without its stamp or its tallies', () => {
    expect(refusal(updateWithMeta({ c: [H1, 'pk-a'], n: { [MILES]: { s: [H1, 'pk-a'] } } }))).toBe(
      `update.docs[0].meta.n[${JSON.stringify(MILES)}].t must be a JSON object`,
    );
    expect(refusal(updateWithMeta({ c: [H1, 'pk-a'], n: { [MILES]: { t: {} } } }))).toBe(
      `update.docs[0].meta.n[${JSON.stringify(MILES)}].s must be a stamp [hlc, writer]`,
    );
  });

  it('__proto__ as a key of a subscription progress or an update progress', () => {
    expect(refusal(parsed('{"type":"subscription","set":{"everything":true,"queries":{}},"version":1,"progress":{"__proto__":5}}'))).toBe(
      'subscription.progress may not have the key __proto__',
    );
    const text = JSON.stringify({ ...update(), progress: { x: 5 } }).replace('"progress":{"x":5}', '"progress":{"__proto__":{"polluted":1}}');
    expect(frameRefusal(text)).toBe('update.progress may not have the key __proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('__proto__ as a key of the f, r and n maps and of a counter tally', () => {
    const base = { c: [H1, 'pk-a'] };
    for (const field of ['f', 'r', 'n']) {
      const meta = parsed(`{"c":${JSON.stringify(base.c)},"${field}":{"__proto__":["${H1}","pk-a"]}}`);
      expect(refusal(updateWithMeta(meta))).toBe(`update.docs[0].meta.${field} may not have the key __proto__`);
    }
    const tally = parsed(`{"c":${JSON.stringify(base.c)},"n":{${JSON.stringify(MILES)}:{"s":["${H1}","pk-a"],"t":{"__proto__":[1,0]}}}}`);
    expect(refusal(updateWithMeta(tally))).toBe('update.docs[0].meta.n.t may not have the key __proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('__proto__ as a collection of a subscription query set', () => {
    const message = parsed(
      '{"type":"subscription","set":{"everything":false,"queries":{"__proto__":[{"expr":"true","order_by":[]}]}},"version":1,"progress":{}}',
    );
    expect(refusal(message)).toBe('subscription.set.queries may not have the key __proto__');
  });

  it('more than MAX_CHUNK_DOCS documents, notices or wants', () => {
    const doc = { collection: 'cars', id: 'a', value: null, meta: { c: [H1, 'pk-a'] } };
    expect(refusal(update(Array.from({ length: MAX_CHUNK_DOCS + 1 }, () => doc)))).toBe(`update.docs has more than ${MAX_CHUNK_DOCS} documents`);
    const refs = Array.from({ length: MAX_CHUNK_DOCS + 1 }, (_, i) => ['cars', i]);
    expect(refusal({ ...update(), notices: refs })).toBe(`update.notices has more than ${MAX_CHUNK_DOCS} entries`);
    expect(refusal({ type: 'want', docs: refs })).toBe(`want.docs has more than ${MAX_CHUNK_DOCS} entries`);
  });

  it('an update whose docs are not a list', () => {
    expect(refusal({ ...update(), docs: {} })).toBe('update.docs must be a list of documents');
    const message = update();
    delete message.docs;
    expect(refusal(message)).toBe('update.docs must be a list of documents');
  });

  it('an update whose upto is below its since_index', () => {
    expect(refusal({ ...update(), since_index: 21, upto: 20 })).toBe('update.upto must not be below update.since_index');
  });

  it('chunk 0 or update 0, in an update and in an ack', () => {
    expect(refusal({ ...update(), chunk: 0 })).toBe('update.chunk must be an integer of at least 1');
    expect(refusal({ ...update(), update: 0 })).toBe('update.update must be an integer of at least 1');
    expect(refusal({ type: 'ack', update: 1, chunk: 0, merged: 0, refused: 0 })).toBe('ack.chunk must be an integer of at least 1');
    expect(refusal({ type: 'ack', update: 0, chunk: 1, merged: 0, refused: 0 })).toBe('ack.update must be an integer of at least 1');
  });

  it('a count that is negative, not an integer, not a number or beyond the safe integers', () => {
    for (const bad of [-1, 1.5, '3', Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, null]) {
      expect(refusal({ ...update(), since_index: bad })).toBe('update.since_index must be an integer of at least 0');
      expect(refusal({ ...update(), since_index: 0, upto: bad })).toBe('update.upto must be an integer of at least 0');
      expect(refusal({ ...update(), subscription_version: bad })).toBe('update.subscription_version must be an integer of at least 0');
      expect(refusal({ type: 'ack', update: 1, chunk: 1, merged: bad, refused: 0 })).toBe('ack.merged must be an integer of at least 0');
      expect(refusal({ type: 'ack', update: 1, chunk: 1, merged: 0, refused: bad })).toBe('ack.refused must be an integer of at least 0');
      expect(refusal({ ...subscription(), progress: { q: bad } })).toBe('subscription.progress["q"] must be an integer of at least 0');
      expect(refusal({ ...update(), progress: { q: bad } })).toBe('update.progress["q"] must be an integer of at least 0');
    }
    expect(refusal({ type: 'ack', update: 1, chunk: 1, refused: 0 })).toBe('ack.merged must be an integer of at least 0');
  });

  it('a subscription of version 0 or without a version', () => {
    expect(refusal({ ...subscription(), version: 0 })).toBe('subscription.version must be an integer of at least 1');
    const message = subscription();
    delete message.version;
    expect(refusal(message)).toBe('subscription.version must be an integer of at least 1');
  });

  it('a subscription whose set is malformed', () => {
    expect(refusal({ ...subscription(), set: { everything: 'no', queries: {} } })).toBe('subscription.set.everything must be true or false');
    expect(refusal({ ...subscription(), set: { everything: false } })).toBe('subscription.set.queries must be a JSON object');
    expect(refusal({ ...subscription(), set: { everything: false, queries: { cars: { expr: 'true', order_by: [] } } } })).toBe(
      'subscription.set.queries.cars must be a list of queries',
    );
    expect(refusal({ ...subscription(), set: { everything: false, queries: { '': [] } } })).toBe(
      'subscription.set.queries key must be a non-empty string of at most 1024 characters',
    );
  });

  it('a query with an empty or missing expr', () => {
    const at = (query: unknown) => ({ ...subscription(), set: { everything: false, queries: { cars: [{ expr: 'true', order_by: [] }, query] } } });
    expect(refusal(at({ expr: '', order_by: [] }))).toBe('subscription.set.queries.cars[1].expr must be a non-empty DQL condition');
    expect(refusal(at({ order_by: [] }))).toBe('subscription.set.queries.cars[1].expr must be a non-empty DQL condition');
    expect(refusal(at({ expr: 1, order_by: [] }))).toBe('subscription.set.queries.cars[1].expr must be a non-empty DQL condition');
  });

  it('a query whose order_by is not a list of strings', () => {
    const at = (order_by: unknown) => ({ ...subscription(), set: { everything: false, queries: { cars: [{ expr: 'true', order_by }] } } });
    for (const order of ['make ASC', [1], ['make', null], { 0: 'make' }, undefined]) {
      expect(refusal(at(order))).toBe('subscription.set.queries.cars[0].order_by must be a list of strings');
    }
  });

  it('a query whose limit or offset is not a count', () => {
    const at = (extra: Record<string, unknown>) => ({
      ...subscription(),
      set: { everything: false, queries: { cars: [{ expr: 'true', order_by: [], ...extra }] } },
    });
    expect(refusal(at({ limit: -1 }))).toBe('subscription.set.queries.cars[0].limit must be an integer of at least 0');
    expect(refusal(at({ offset: 0.5 }))).toBe('subscription.set.queries.cars[0].offset must be an integer of at least 0');
  });

  it('an unknown field in meta', () => {
    expect(refusal(updateWithMeta({ c: [H1, 'pk-a'], x: 1 }))).toBe('update.docs[0].meta has an unknown field "x"');
    expect(refusal(updateWithMeta({ c: [H1, 'pk-a'], d: [H2, 'pk-a'], deleted: true }))).toBe('update.docs[0].meta has an unknown field "deleted"');
  });

  it('a want or notice that is not a [collection, id] pair', () => {
    expect(refusal({ type: 'want', docs: 'cars' })).toBe('want.docs must be a list of [collection, id]');
    expect(refusal({ type: 'want', docs: [['cars', 'a'], ['cars']] })).toBe('want.docs[1] must be [collection, id]');
    expect(refusal({ type: 'want', docs: [['cars', null]] })).toBe('want.docs[0] must be [collection, id]');
    expect(refusal({ type: 'want', docs: [['', 'a']] })).toBe('want.docs[0][0] must be a non-empty string of at most 1024 characters');
    expect(refusal({ ...update(), notices: [['cars', 'a', 'b']] })).toBe('update.notices[0] must be [collection, id]');
  });

  it('an error without a code', () => {
    expect(refusal({ type: 'error', message: 'bye' })).toBe('error.code must be a non-empty string of at most 1024 characters');
  });
});

describe('queryKey', () => {
  it('is the same for the same query whatever the key order of the object given', () => {
    const a = queryKey('cars', { expr: "color == 'red'", order_by: ['make ASC'], limit: 10, offset: 2 });
    const b = queryKey('cars', { offset: 2, limit: 10, order_by: ['make ASC'], expr: "color == 'red'" } as SubscriptionQuery);
    const c = queryKey('cars', { limit: 10, expr: "color == 'red'", offset: 2, order_by: ['make ASC'] } as SubscriptionQuery);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(queryKey('cars', { order_by: [], expr: 'true' } as SubscriptionQuery)).toBe(queryKey('cars', { expr: 'true', order_by: [] }));
  });

  it('is the same for a query as for the query checkSessionMessage returns from it', () => {
    const value = accepted(subscription());
    const query = value.type === 'subscription' ? value.set.queries.cars?.[0] : undefined;
    expect(query && queryKey('cars', query)).toBe(queryKey('cars', RED));
  });

  it('differs for a different limit, offset, expr, order or collection', () => {
    const key = queryKey('cars', RED);
    expect(queryKey('cars', { ...RED, limit: 11 })).not.toBe(key);
    expect(queryKey('cars', { ...RED, limit: 0 })).not.toBe(key);
    const { limit: _limit, ...noLimit } = RED;
    expect(queryKey('cars', noLimit)).not.toBe(key);
    expect(queryKey('cars', { ...RED, offset: 3 })).not.toBe(key);
    expect(queryKey('cars', { ...RED, expr: "color == 'blue'" })).not.toBe(key);
    expect(queryKey('cars', { ...RED, order_by: ['make DESC'] })).not.toBe(key);
    expect(queryKey('trucks', RED)).not.toBe(key);
  });
});

describe('checkSessionMessage keeps __proto__ out of documents', () => {
  const H = '0000018f2a3b4c00';
  const update = (doc: Record<string, unknown>) => ({ type: 'update', update: 1, chunk: 1, since_index: 0, upto: 1, subscription_version: 1, docs: [doc] });
  const cases: [string, unknown][] = [
    ['at the top of a value', update({ collection: 'c', id: 'a', value: JSON.parse('{"_id":"a","__proto__":{"polluted":"yes"}}'), meta: { c: [H, 'pk'] } })],
    ['nested in a value', update({ collection: 'c', id: 'a', value: JSON.parse('{"_id":"a","x":{"__proto__":{"polluted":"yes"}}}'), meta: { c: [H, 'pk'] } })],
    [
      'as a counter path segment',
      update({ collection: 'c', id: 'a', value: { _id: 'a' }, meta: { c: [H, 'pk'], n: { '["__proto__","polluted"]': { s: [H, 'pk'], t: { pk: [5, 0] } } } } }),
    ],
    ['as an f path segment', update({ collection: 'c', id: 'a', value: { _id: 'a' }, meta: { c: [H, 'pk'], f: { '["__proto__","x"]': [H, 'pk'] } } })],
    ['in an id', update({ collection: 'c', id: JSON.parse('{"__proto__":1}'), value: null, meta: { c: [H, 'pk'] } })],
    ['in a wanted id', { type: 'want', docs: [['cars', JSON.parse('{"__proto__":1}')]] }],
  ];
  for (const [where, message] of cases) {
    it(`refuses __proto__ ${where}`, () => {
      const check = checkSessionMessage(message);
      expect(check.ok).toBe(false);
      expect(check.ok ? '' : check.reason).toContain('__proto__');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  }

  it('refuses a value nested deeper than MAX_VALUE_DEPTH', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 150; i++) deep = { d: deep };
    const check = checkSessionMessage(update({ collection: 'c', id: 'a', value: { _id: 'a', deep }, meta: { c: [H, 'pk'] } }));
    expect(check.ok ? '' : check.reason).toMatch(/nests deeper than 100 levels/);
  });
});
