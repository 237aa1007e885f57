/**
 * The browser tests' `test` and `expect`: every page fails its test on a console error, an
 * uncaught exception or a Content-Security-Policy violation (a test that expects one, like a
 * 404 page, says so with `allowConsoleErrors`), and helpers to open a peer's inspector on a panel.
 */
import { test as base, expect, type BrowserContext, type Locator, type Page } from '@playwright/test';
import type { InspectedPeer } from './processes.ts';

export { expect };

/** What a page must never do: logged errors, uncaught exceptions, CSP violations. */
interface PageProblems {
  readonly problems: string[];
  readonly allowed: RegExp[];
}

const problemsOf = new WeakMap<Page, PageProblems>();

/** Lets console errors matching `pattern` pass on this page (for a test that expects them). */
export function allowConsoleErrors(page: Page, pattern: RegExp): void {
  problemsOf.get(page)?.allowed.push(pattern);
}

/** Starts watching a page for problems; every page of the test's browser context gets this. */
function watch(page: Page, problems: string[]): void {
  const record: PageProblems = { problems, allowed: [] };
  problemsOf.set(page, record);
  const report = (text: string): void => {
    if (record.allowed.some((pattern) => pattern.test(text))) return;
    record.problems.push(text);
  };
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const where = message.location();
    report(`console error: ${message.text()}${where.url ? ` (${where.url}:${where.lineNumber})` : ''}`);
  });
  page.on('pageerror', (error) => report(`uncaught exception: ${error.stack ?? error.message}`));
}

/** Watches every page of `context`, now and later. */
async function watchContext(context: BrowserContext, problems: string[]): Promise<void> {
  // Chromium logs CSP refusals as console errors too; the event catches any it would not.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || '(inline)'} at ${event.sourceFile}:${event.lineNumber}`);
    });
  });
  for (const page of context.pages()) watch(page, problems);
  context.on('page', (page) => watch(page, problems));
}

interface Fixtures {
  /** Problems seen on any page of the test. */
  pageProblems: string[];
  /**
   * A page in a browser context of its own (a second window: a page that shares a context with
   * another is a background tab, whose animation frames Chromium holds back).
   */
  openWindow: () => Promise<Page>;
}

export const test = base.extend<Fixtures>({
  // eslint-disable-next-line no-empty-pattern -- Playwright requires a destructuring pattern for a fixture's first argument
  pageProblems: async ({}, use, testInfo) => {
    const problems: string[] = [];
    await use(problems);
    // Errors that the test's own failure caused are not news; they fail a passing test only.
    if (testInfo.status === testInfo.expectedStatus) {
      expect(problems, 'the page logged errors, threw, or broke its Content-Security-Policy').toEqual([]);
    } else if (problems.length > 0) {
      await testInfo.attach('page-problems.txt', { body: problems.join('\n'), contentType: 'text/plain' });
    }
  },
  context: async ({ context, pageProblems }, use) => {
    await watchContext(context, pageProblems);
    await use(context);
  },
  openWindow: async ({ browser, pageProblems, viewport }, use) => {
    const contexts: BrowserContext[] = [];
    await use(async () => {
      const context = await browser.newContext({ viewport });
      contexts.push(context);
      await watchContext(context, pageProblems);
      return context.newPage();
    });
    for (const context of contexts) await context.close();
  },
});

export type PanelName = 'Overview' | 'Documents' | 'Subscriptions' | 'Permissions' | 'Transactions' | 'Mesh' | 'Logs' | 'Eviction';

/** Opens `peer`'s inspector (optionally on a panel) and waits for its link to the peer. */
export async function openInspector(page: Page, peer: Pick<InspectedPeer, 'inspectorUrl'>, panel: PanelName = 'Overview'): Promise<void> {
  await page.goto(`${peer.inspectorUrl}#/${panel.toLowerCase()}`);
  await expect(page.getByRole('contentinfo', { name: 'Status' }).getByText('Linked to peer')).toBeVisible();
  await expect(panelTab(page, panel)).toHaveAttribute('aria-selected', 'true');
}

export function panelTab(page: Page, panel: PanelName): Locator {
  return page.getByRole('tablist', { name: 'Panels' }).getByRole('tab', { name: panel, exact: true });
}

/** Switches panels with the tab, as a person would. */
export async function showPanel(page: Page, panel: PanelName): Promise<Locator> {
  await panelTab(page, panel).click();
  await expect(panelTab(page, panel)).toHaveAttribute('aria-selected', 'true');
  return page.locator('#panel-main');
}

/** How long replication between processes may take on a loaded 2-core machine. */
export const REPLICATION_TIMEOUT_MS = 30_000;

/** The value next to `label` in a section's label–value list (`<dt>`/`<dd>`). */
export function valueOf(section: Locator, label: string | RegExp): Locator {
  return section
    .locator('.kv-row')
    .filter({ has: section.page().getByRole('term').filter({ hasText: label }) })
    .getByRole('definition');
}

/** A titled section of a panel (`<section aria-labelledby>`: a region named by its heading). */
export function section(page: Page, title: string | RegExp): Locator {
  return page.locator('#panel-main').getByRole('region', { name: title, exact: typeof title === 'string' ? true : undefined });
}
