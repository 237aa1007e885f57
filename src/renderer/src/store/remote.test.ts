import { describe, expect, it } from 'vitest';
import { idle, isFirstLoad, loading, settle } from './remote.ts';

describe('Remote', () => {
  it('keeps the last value while it refreshes and when the refresh fails', () => {
    const first = settle(loading(idle<number>()), { ok: true, value: 1 }, 100);
    expect(first).toEqual({ status: 'ready', value: 1, error: undefined, receivedAt: 100 });
    const refreshing = loading(first);
    expect(refreshing.value).toBe(1);
    const failed = settle(refreshing, { ok: false, error: { code: 'store/closed', message: 'closed' } }, 200);
    expect(failed).toEqual({ status: 'error', value: 1, error: { code: 'store/closed', message: 'closed' }, receivedAt: 100 });
  });

  it('tells a first load from a refresh', () => {
    expect(isFirstLoad(idle())).toBe(true);
    expect(isFirstLoad(loading(idle()))).toBe(true);
    expect(isFirstLoad(loading(settle(idle<number>(), { ok: true, value: 1 }, 0)))).toBe(false);
    expect(isFirstLoad(settle(idle<number>(), { ok: false, error: { code: 'store/closed', message: 'x' } }, 0))).toBe(false);
  });
});
