/**
 * `prefs:get`, `prefs:set`: the inspector page's preferences, kept in the peer's store settings
 * (one key), so that a page served on a new port finds them again (shared/inspector/prefs.ts).
 */
import type { InspectorHandlers } from '../../../shared/inspector/contract.ts';
import { MAX_PREFS_BYTES } from '../../../shared/inspector/prefs.ts';
import type { JsonObject } from '../../../shared/json.ts';
import type { InspectorContext } from '../context.ts';
import { badRequest, emptyInput, objectInput } from './input.ts';

/** The setting that holds them. */
export const PREFS_SETTING = 'inspector/prefs';

type PrefsHandlers = Pick<InspectorHandlers, 'prefs:get' | 'prefs:set'>;

export function prefsHandlers(ctx: InspectorContext): PrefsHandlers {
  return {
    'prefs:get': async (input) => {
      emptyInput(input);
      const text = ctx.sync.store.internalSettings.get(PREFS_SETTING);
      if (text === undefined) return { prefs: null };
      try {
        const prefs = JSON.parse(text) as unknown;
        return { prefs: typeof prefs === 'object' && prefs !== null && !Array.isArray(prefs) ? (prefs as JsonObject) : null };
      } catch {
        return { prefs: null };
      }
    },
    'prefs:set': async (input) => {
      const o = objectInput(input, ['prefs']);
      const prefs = o.prefs;
      if (typeof prefs !== 'object' || prefs === null || Array.isArray(prefs)) throw badRequest('prefs: an object');
      const text = JSON.stringify(prefs);
      if (Buffer.byteLength(text) > MAX_PREFS_BYTES) throw badRequest(`prefs: at most ${MAX_PREFS_BYTES} bytes of JSON, not ${Buffer.byteLength(text)}`);
      await ctx.sync.store.internalSettings.set({ [PREFS_SETTING]: text });
      return {};
    },
  };
}
