import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PREFS_BYTES } from '../../../shared/inspector/prefs.ts';
import { CallFailed, inspectorKit, type InspectorKit } from '../../../testing/inspector/test-kit.ts';

let kit: InspectorKit | undefined;
afterEach(() => {
  kit?.dispose();
  kit = undefined;
});

describe('prefs:get and prefs:set', () => {
  it('answers null before any were kept, then what was set last', async () => {
    kit = inspectorKit();
    expect(await kit.call('prefs:get')).toEqual({ prefs: null });
    await kit.call('prefs:set', { prefs: { theme: 'dark', history: [{ statement: 'SELECT * FROM a' }] } });
    await kit.call('prefs:set', { prefs: { theme: 'light' } });
    expect(await kit.call('prefs:get')).toEqual({ prefs: { theme: 'light' } });
  });

  it('refuses what is not an object, or more than its limit, and keeps what it had', async () => {
    kit = inspectorKit();
    await kit.call('prefs:set', { prefs: { theme: 'dark' } });
    for (const prefs of [[1], 'x', null]) {
      await expect(kit.call('prefs:set', { prefs } as never)).rejects.toMatchObject({ error: { code: 'inspector/bad-request' } });
    }
    await expect(kit.call('prefs:set', { prefs: { big: 'x'.repeat(MAX_PREFS_BYTES) } })).rejects.toBeInstanceOf(CallFailed);
    expect(await kit.call('prefs:get')).toEqual({ prefs: { theme: 'dark' } });
  });
});
