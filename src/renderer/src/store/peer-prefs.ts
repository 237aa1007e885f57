/**
 * The page's preferences kept with the peer (`prefs:get`, `prefs:set`): the console's history,
 * the theme and the Documents layout. localStorage keeps them too, but belongs to the page's
 * origin, and `syncmesh inspect` serves each run on a new port: with the peer, the next run
 * finds them. Read once the link first opens; nothing is saved before (a new page's defaults
 * never overwrite what the peer kept); then saved a second after each change, and again when the
 * link comes back (a save is refused while it is down).
 */
import type { JsonObject } from '../../../shared/json.ts';
import { inspector } from '../client/index.ts';
import { parseLayout } from '../features/documents/slice.ts';
import { parseHistory } from '../features/documents/history.ts';
import { parseThemePreference } from '../shell/theme.ts';
import type { EventWiring, InspectorState } from './types.ts';

const SAVE_AFTER_MS = 1_000;

function prefsOf(state: InspectorState): JsonObject {
  const prefs = { version: 1, history: state.documentsView.history.entries, theme: state.shellView.theme, documentsLayout: state.documentsView.layout };
  // Plain data: history entries, a theme name, numbers.
  return prefs as unknown as JsonObject;
}

export const wirePeerPrefs: EventWiring = (store) => {
  let loaded = false;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const save = (): void => {
    timer = undefined;
    if (!stopped) void inspector.call('prefs:set', { prefs: prefsOf(store.getState()) });
  };
  const load = async (): Promise<void> => {
    const answer = await inspector.call('prefs:get', {});
    if (stopped) return;
    loaded = true;
    const prefs = answer.ok ? answer.value.prefs : null;
    if (prefs === null) return;
    const history = parseHistory(prefs.history);
    const theme = parseThemePreference(prefs.theme);
    const layout = parseLayout(prefs.documentsLayout);
    const state = store.getState();
    if (theme !== undefined && theme !== state.shellView.theme) state.setTheme(theme);
    store.setState((s) => ({
      documentsView: {
        ...s.documentsView,
        // The peer's history, unless this page has one already (the desktop app's own origin keeps it too).
        history:
          history !== undefined && history.length > 0 && s.documentsView.history.entries.length === 0
            ? { ...s.documentsView.history, entries: history }
            : s.documentsView.history,
        layout: layout ?? s.documentsView.layout,
      },
    }));
  };
  void load();
  const stopWatch = store.subscribe((state, previous) => {
    if (state.linkEpoch > previous.linkEpoch && previous.linkEpoch > 0) {
      if (!loaded) void load();
      else if (timer === undefined) timer = setTimeout(save, SAVE_AFTER_MS);
      return;
    }
    if (!loaded) return;
    const changed =
      state.documentsView.history.entries !== previous.documentsView.history.entries ||
      state.shellView.theme !== previous.shellView.theme ||
      state.documentsView.layout !== previous.documentsView.layout;
    if (changed && timer === undefined) timer = setTimeout(save, SAVE_AFTER_MS);
  });
  return () => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    stopWatch();
  };
};
