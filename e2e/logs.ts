/** Reading the Logs panel: its filter and the messages of the rows it shows, in order. */
import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures.ts';

export function logRows(page: Page): Locator {
  return page.getByRole('rowgroup', { name: 'Log entries, newest last' }).getByRole('row');
}

/** Types `text` into the panel's filter (text or /regex/). */
export async function filterLogs(page: Page, text: string): Promise<void> {
  const filter = page.getByRole('searchbox', { name: 'Filter log entries' });
  await filter.fill(text);
  await expect(filter).toHaveValue(text);
}

/** The message cells of the rows in the DOM (the list is virtualized: those in view and a few around). */
export async function shownMessages(page: Page): Promise<string[]> {
  return logRows(page).locator('.log-cell-message').allInnerTexts();
}

/**
 * Waits until the rows shown hold lines matching `expected`, in this order (other lines may come
 * between them), and answers the index of each match.
 */
export async function expectLogSequence(page: Page, expected: readonly RegExp[], timeout = 30_000): Promise<void> {
  await expect
    .poll(
      async () => {
        const messages = await shownMessages(page);
        let from = 0;
        const missing: string[] = [];
        for (const pattern of expected) {
          const at = messages.findIndex((message, i) => i >= from && pattern.test(message));
          if (at === -1) missing.push(String(pattern));
          else from = at + 1;
        }
        return missing.length === 0 ? 'in order' : `missing or out of order: ${missing.join(', ')}\nshown:\n${messages.join('\n')}`;
      },
      { timeout, message: 'the Logs panel shows the lines in order' },
    )
    .toBe('in order');
}
