import { describe, expect, it } from 'vitest';
import { hashFor, isGoToShortcut, panelForShortcut, panelFromHash, PANEL_IDS } from './navigation.ts';
import { nextThemePreference, parseThemePreference, resolveTheme } from './theme.ts';

const key = (code: string, mods: Partial<{ altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean }> = {}) => ({
  code,
  key: '',
  altKey: false,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  ...mods,
});

describe('navigation', () => {
  it('reads the panel from the URL hash and writes it back', () => {
    for (const id of PANEL_IDS) expect(panelFromHash(hashFor(id))).toBe(id);
    expect(panelFromHash('#documents')).toBe('documents');
    expect(panelFromHash('#/nothing')).toBeUndefined();
    expect(panelFromHash('')).toBeUndefined();
  });

  it('switches panels with Alt and a digit, by key position', () => {
    expect(panelForShortcut(key('Digit1', { altKey: true }))).toBe('overview');
    expect(panelForShortcut(key('Digit7', { altKey: true }))).toBe('logs');
    expect(panelForShortcut(key('Digit8', { altKey: true }))).toBe('eviction');
    expect(panelForShortcut(key('Digit9', { altKey: true }))).toBeUndefined();
    expect(panelForShortcut(key('Digit2'))).toBeUndefined();
    expect(panelForShortcut(key('Digit2', { altKey: true, ctrlKey: true }))).toBeUndefined();
  });
});

describe('theme', () => {
  it('follows the system only when asked to', () => {
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('system', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
  });

  it('cycles system, light, dark', () => {
    expect(nextThemePreference('system')).toBe('light');
    expect(nextThemePreference('light')).toBe('dark');
    expect(nextThemePreference('dark')).toBe('system');
  });

  it('reads only a known stored choice', () => {
    expect(parseThemePreference('dark')).toBe('dark');
    expect(parseThemePreference('blue')).toBeUndefined();
    expect(parseThemePreference(null)).toBeUndefined();
  });
});

describe('isGoToShortcut', () => {
  it('is Alt+G by key position alone', () => {
    const key = (code: string, mods: Partial<Record<'altKey' | 'ctrlKey' | 'metaKey' | 'shiftKey', boolean>> = {}) => ({
      code,
      key: '',
      altKey: false,
      ctrlKey: false,
      metaKey: false,
      shiftKey: false,
      ...mods,
    });
    expect(isGoToShortcut(key('KeyG', { altKey: true }))).toBe(true);
    expect(isGoToShortcut(key('KeyG'))).toBe(false);
    expect(isGoToShortcut(key('KeyG', { altKey: true, ctrlKey: true }))).toBe(false);
    expect(isGoToShortcut(key('KeyG', { altKey: true, shiftKey: true }))).toBe(false);
    expect(isGoToShortcut(key('KeyH', { altKey: true }))).toBe(false);
  });
});
