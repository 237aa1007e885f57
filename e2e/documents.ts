/** Driving the Documents panel: the console, the result, the collection list, the dialogs. */
import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures.ts';

export function consoleEditor(page: Page): Locator {
  return page.getByRole('textbox', { name: 'DQL statement' });
}

export function argumentsEditor(page: Page): Locator {
  return page.getByRole('textbox', { name: 'Arguments (JSON)' });
}

export function resultsGrid(page: Page): Locator {
  return page.getByRole('grid', { name: 'Query results' });
}

/** The body rows of the result grid (those in the DOM: it is virtualized). */
export function resultRows(page: Page): Locator {
  return resultsGrid(page)
    .getByRole('row')
    .filter({ has: page.getByRole('gridcell') });
}

/**
 * Replaces an editor's text as typing would. (Locator.fill uses execCommand('insertText'), with
 * which Chromium may write `style` attributes into a contenteditable: CSP violations that no
 * person typing would cause.)
 */
export async function typeInto(editor: Locator, text: string): Promise<void> {
  // Focused, not clicked: a completion list left open may lie over the editor.
  await editor.focus();
  await editor.press('ControlOrMeta+a');
  await editor.press('Delete');
  if (text !== '') await editor.page().keyboard.insertText(text);
}

/** Writes a statement (and its arguments) in the console and runs it with the Run button. */
export async function runInConsole(page: Page, statement: string, args?: Record<string, unknown>): Promise<void> {
  const editor = consoleEditor(page);
  await typeInto(editor, statement);
  await expect(editor).toHaveText(statement);
  const argsText = args === undefined ? '' : JSON.stringify(args);
  await typeInto(argumentsEditor(page), argsText);
  if (argsText !== '') await expect(argumentsEditor(page)).toHaveText(argsText);
  await page.getByRole('toolbar', { name: 'Console' }).getByRole('button', { name: /^Run/ }).click();
}

/** Opens a collection from the Documents panel's list (a SELECT of it runs). */
export async function openCollection(page: Page, name: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Collections' })
    .getByRole('button', { name: new RegExp(`^${name}\\b`) })
    .click();
}
