/** What differs between platforms in the keyboard: the modifier of shortcuts and how it is written. */

/** Whether the inspector runs on macOS (⌘ instead of Ctrl). */
export const IS_MAC = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/** The shortcut modifier as shown: `⌘` or `Ctrl+`. */
export const MOD = IS_MAC ? '⌘' : 'Ctrl+';

/** Whether the shortcut modifier (⌘ on macOS, Ctrl elsewhere) is held, and no other than Shift. */
export function isModKey(event: { readonly metaKey: boolean; readonly ctrlKey: boolean; readonly altKey: boolean }): boolean {
  return !event.altKey && (IS_MAC ? event.metaKey && !event.ctrlKey : event.ctrlKey && !event.metaKey);
}
