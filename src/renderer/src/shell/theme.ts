/** Light, dark, or as the system says: the user's choice, kept in localStorage, applied to `<html data-theme>`. */
import { readStored, writeStored } from '../store/persist.ts';

export type ThemePreference = 'system' | 'light' | 'dark';
export type Theme = 'light' | 'dark';

const STORAGE_KEY = 'theme';

export function parseThemePreference(value: unknown): ThemePreference | undefined {
  return value === 'system' || value === 'light' || value === 'dark' ? value : undefined;
}

export function resolveTheme(preference: ThemePreference, systemPrefersDark: boolean): Theme {
  return preference === 'system' ? (systemPrefersDark ? 'dark' : 'light') : preference;
}

/** The choice after `preference` when the theme button is pressed: system → light → dark → system. */
export function nextThemePreference(preference: ThemePreference): ThemePreference {
  return preference === 'system' ? 'light' : preference === 'light' ? 'dark' : 'system';
}

export function storedThemePreference(): ThemePreference {
  return readStored(STORAGE_KEY, parseThemePreference) ?? 'system';
}

export function storeThemePreference(preference: ThemePreference): void {
  writeStored(STORAGE_KEY, preference);
}

const darkQuery = (): MediaQueryList | undefined => globalThis.matchMedia?.('(prefers-color-scheme: dark)');

/** Sets `data-theme` on `<html>` now and whenever the system's scheme changes; returns the function that stops following it. */
export function applyTheme(preference: ThemePreference): () => void {
  const query = darkQuery();
  const apply = () => {
    document.documentElement.dataset['theme'] = resolveTheme(preference, query?.matches ?? false);
  };
  apply();
  if (preference !== 'system' || query === undefined) return () => {};
  query.addEventListener('change', apply);
  return () => query.removeEventListener('change', apply);
}
