import { describe, expect, it } from 'vitest';
import type { InspectorHandlers } from '../../shared/inspector/contract.ts';
import { CALL_NAMES } from '../../shared/inspector/contract.ts';
import { SyncError } from '../errors.ts';
import { serveCall } from './serve-call.ts';

function handlers(fn: (input: unknown) => Promise<unknown>): InspectorHandlers {
  return Object.fromEntries(CALL_NAMES.map((name) => [name, fn])) as unknown as InspectorHandlers;
}

describe('serveCall', () => {
  it('answers a handler’s value as ok', async () => {
    expect(
      await serveCall(
        handlers(async (input) => ({ echo: input })),
        'overview:get',
        { a: 1 },
      ),
    ).toEqual({ ok: true, value: { echo: { a: 1 } } });
  });

  it('refuses an unknown channel with inspector/bad-request naming it, without calling anything', async () => {
    let called = false;
    const h = handlers(async () => (called = true));
    for (const channel of ['documents:drop', '', 42, null, undefined, { x: 1 }, 'constructor', '__proto__', 'x'.repeat(10_000)]) {
      const result = await serveCall(h, channel, {});
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.code).toBe('inspector/bad-request');
        expect(result.error.message.length).toBeLessThan(200);
      }
    }
    expect(called).toBe(false);
    const named = await serveCall(h, 'documents:drop', {});
    expect(!named.ok && named.error.message).toContain('"documents:drop"');
  });

  it('keeps the code of a typed error and its details', async () => {
    const result = await serveCall(
      handlers(async () => {
        throw new SyncError('query/invalid', 'bad', { details: { line: 1 } });
      }),
      'documents:query',
      {},
    );
    expect(result).toEqual({ ok: false, error: { code: 'query/invalid', message: 'bad', details: { line: 1 } } });
  });

  it('turns anything else thrown into internal/unexpected, and never rejects', async () => {
    expect(
      await serveCall(
        handlers(async () => {
          throw new TypeError('boom');
        }),
        'mesh:get',
        {},
      ),
    ).toEqual({ ok: false, error: { code: 'internal/unexpected', message: 'boom' } });
    expect(
      await serveCall(
        handlers(() => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- a non-Error thrown on purpose
          throw 'plain';
        }),
        'mesh:get',
        {},
      ),
    ).toEqual({ ok: false, error: { code: 'internal/unexpected', message: 'plain' } });
  });
});
