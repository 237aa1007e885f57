/**
 * Which panel is shown, as the URL says it (`#/documents`), and the keyboard shortcuts that switch
 * panels (Alt+1 … Alt+8, by key position so that it works on every layout). Pure.
 */

/** Every panel, in the order of the tabs. */
export const PANEL_IDS = ['overview', 'documents', 'subscriptions', 'permissions', 'transactions', 'mesh', 'logs', 'eviction'] as const;

export type PanelId = (typeof PANEL_IDS)[number];

export function isPanelId(value: unknown): value is PanelId {
  return typeof value === 'string' && (PANEL_IDS as readonly string[]).includes(value);
}

/** `#/documents` → `documents`; anything else → undefined. */
export function panelFromHash(hash: string): PanelId | undefined {
  const match = /^#\/?([a-z]+)/.exec(hash);
  return match !== null && isPanelId(match[1]) ? match[1] : undefined;
}

export function hashFor(panel: PanelId): string {
  return `#/${panel}`;
}

export interface KeyLike {
  readonly code: string;
  readonly key: string;
  readonly altKey: boolean;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly shiftKey: boolean;
}

/** The panel an Alt+digit shortcut asks for. */
export function panelForShortcut(event: KeyLike): PanelId | undefined {
  if (!event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return undefined;
  const match = /^Digit([1-9])$/.exec(event.code);
  if (match === null) return undefined;
  return PANEL_IDS[Number(match[1]) - 1];
}

/** Alt+G, by key position: the "Go to document" box. */
export function isGoToShortcut(event: KeyLike): boolean {
  return event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey && event.code === 'KeyG';
}

/** The shortcuts the help dialog lists, in its order. `Mod` is ⌘ on macOS and Ctrl elsewhere. */
export const SHORTCUTS: readonly { readonly keys: readonly string[]; readonly what: string }[] = [
  { keys: ['Alt', '1 … 8'], what: 'Show a panel (Overview … Eviction)' },
  { keys: ['Alt', 'G'], what: 'Go to a document by its _id, with its sync trace' },
  { keys: ['←', '→'], what: 'Move between tabs when a tab has focus' },
  { keys: ['Mod', 'Enter'], what: 'Run the statement in the console' },
  { keys: ['Mod', '↑'], what: 'Previous statement in the console history' },
  { keys: ['Mod', '↓'], what: 'Next statement in the console history' },
  { keys: ['Ctrl', 'Space'], what: 'Complete a DQL keyword or collection name' },
  { keys: ['↑', '↓'], what: 'Move the selection in a result table' },
  { keys: ['Esc'], what: 'Close a dialog' },
  { keys: ['?'], what: 'Show these shortcuts' },
];
