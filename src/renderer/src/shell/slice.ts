/** The shell's slice: which panel is shown, and the link to the peer. */
import { linkState, onLinkStateChange, type LinkState } from '../client/index.ts';
import type { EventWiring, SliceCreator } from '../store/types.ts';
import type { PanelId } from './panels.tsx';

export interface ShellSlice {
  readonly shellView: { readonly panel: PanelId };
  readonly link: LinkState;
  showPanel(panel: PanelId): void;
}

export const createShellSlice: SliceCreator<ShellSlice> = (set) => ({
  shellView: { panel: 'overview' },
  link: linkState(),
  showPanel: (panel) => set({ shellView: { panel } }),
});

export const wireShellEvents: EventWiring = (store) =>
  onLinkStateChange((link) => store.setState({ link }));
