/** The shell's slice: which panel is shown, the theme, the shortcut help, and the link to the peer. */
import { linkState, onLinkStateChange, onWaitingCallsChange, waitingCalls, type LinkState } from '../client/index.ts';
import type { EventWiring, SliceCreator } from '../store/types.ts';
import { hashFor, panelFromHash, type PanelId } from './navigation.ts';
import { applyTheme, storedThemePreference, storeThemePreference, type ThemePreference } from './theme.ts';

export interface ShellSlice {
  readonly shellView: {
    readonly panel: PanelId;
    readonly theme: ThemePreference;
    readonly shortcutsOpen: boolean;
    /** The "Go to document" box (Alt+G). */
    readonly goToOpen: boolean;
  };
  /** The link to the peer (always `open` in the Electron window). */
  readonly link: LinkState;
  /**
   * How many times the link has opened. Events pushed while it was down are lost, so panels
   * fetch again when this changes.
   */
  readonly linkEpoch: number;
  /** Calls waiting for the link (reads made while it was down; a change is refused, never queued). */
  readonly waitingCalls: number;
  showPanel(panel: PanelId): void;
  setTheme(theme: ThemePreference): void;
  setShortcutsOpen(open: boolean): void;
  setGoToOpen(open: boolean): void;
}

function initialPanel(): PanelId {
  return (typeof location === 'undefined' ? undefined : panelFromHash(location.hash)) ?? 'overview';
}

export const createShellSlice: SliceCreator<ShellSlice> = (set, get) => {
  const link = linkState();
  return {
    shellView: { panel: initialPanel(), theme: storedThemePreference(), shortcutsOpen: false, goToOpen: false },
    link,
    linkEpoch: link === 'open' ? 1 : 0,
    waitingCalls: waitingCalls(),
    showPanel: (panel) => {
      if (get().shellView.panel === panel) return;
      set((s) => ({ shellView: { ...s.shellView, panel } }));
      if (typeof location !== 'undefined' && panelFromHash(location.hash) !== panel) history.pushState(null, '', hashFor(panel));
    },
    setTheme: (theme) => {
      storeThemePreference(theme);
      set((s) => ({ shellView: { ...s.shellView, theme } }));
    },
    setShortcutsOpen: (shortcutsOpen) => set((s) => ({ shellView: { ...s.shellView, shortcutsOpen } })),
    setGoToOpen: (goToOpen) => set((s) => ({ shellView: { ...s.shellView, goToOpen } })),
  };
};

export const wireShellEvents: EventWiring = (store) => {
  const stopLink = onLinkStateChange((link) => store.setState((s) => ({ link, linkEpoch: link === 'open' ? s.linkEpoch + 1 : s.linkEpoch })));
  const stopWaiting = onWaitingCallsChange((n) => store.setState({ waitingCalls: n }));
  // Back and forward move between panels.
  const onPopState = () => {
    const panel = panelFromHash(location.hash);
    if (panel !== undefined) store.setState((s) => ({ shellView: { ...s.shellView, panel } }));
  };
  window.addEventListener('popstate', onPopState);
  // The theme follows the user's choice (and the system's, for `system`).
  let stopTheme = applyTheme(store.getState().shellView.theme);
  const stopThemeWatch = store.subscribe((state, previous) => {
    if (state.shellView.theme === previous.shellView.theme) return;
    stopTheme();
    stopTheme = applyTheme(state.shellView.theme);
  });
  return () => {
    stopLink();
    stopWaiting();
    window.removeEventListener('popstate', onPopState);
    stopThemeWatch();
    stopTheme();
  };
};

/**
 * Calls `refetch` each time the link opens again after being down (not the first time), for
 * slices whose data may have changed while events could not arrive.
 */
export function onLinkReopened(store: Parameters<EventWiring>[0], refetch: () => void): () => void {
  return store.subscribe((state, previous) => {
    if (state.linkEpoch > previous.linkEpoch && previous.linkEpoch > 0) refetch();
  });
}

/**
 * Refreshes for a panel's data that is costly for the peer (match counts, verdicts): `load` runs
 * each time the panel is shown, and `refresh()` (for events) runs it only while it is shown.
 */
export function whileShown(store: Parameters<EventWiring>[0], panel: PanelId, load: () => void): { readonly refresh: () => void; readonly stop: () => void } {
  const stop = store.subscribe((state, previous) => {
    if (state.shellView.panel === panel && previous.shellView.panel !== panel) load();
  });
  if (store.getState().shellView.panel === panel) load();
  return {
    refresh: () => {
      if (store.getState().shellView.panel === panel) load();
    },
    stop,
  };
}
