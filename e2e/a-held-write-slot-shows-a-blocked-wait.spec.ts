/**
 * The Transactions panel with the write slot held (its QA hold) while a write comes: the writer
 * waits, shown live with who holds the slot; once the hold ends the write commits and the blocked
 * wait shows who blocked whom and for how long, with the level of its "blocked" log line (spec
 * section 8: DEBUG up to 30 s). The peer runs at DEBUG, so the Logs panel shows that line too.
 */
import { runInConsole } from './documents.ts';
import { expect, openInspector, test } from './fixtures.ts';
import { expectLogSequence, filterLogs } from './logs.ts';
import { createMesh, type InspectedPeer } from './processes.ts';

const mesh = createMesh('blocked');
let peer: InspectedPeer;
/**
 * Long enough for one "blocked" line (every 10 s) even if the write starts late on a loaded
 * machine, short of WARN (30 s).
 */
const HOLD_SECONDS = 20;

test.beforeAll(async () => {
  peer = await mesh.startPeer('a', { logLevel: 'DEBUG' });
});
test.afterAll(() => mesh.stop());

test('a write behind a held slot waits, then shows as a blocked wait: who blocked whom, how long, at which level', async ({ page, openWindow }) => {
  test.setTimeout(120_000);
  await openInspector(page, peer, 'Transactions');
  const slot = page.getByRole('region', { name: 'Write slot now' });
  await expect(slot).toContainText('Free');

  // Hold the slot with the panel's own control.
  await slot.getByRole('button', { name: 'Hold the write slot…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Hold the write slot' });
  await dialog.getByRole('spinbutton', { name: 'Duration (seconds)' }).fill(String(HOLD_SECONDS));
  await dialog.getByRole('textbox', { name: /^Hint/ }).fill('e2e hold');
  await dialog.getByRole('button', { name: `Hold for ${HOLD_SECONDS} s` }).click();
  await expect(dialog).toBeHidden();
  const holder = slot.getByTestId('slot-holder');
  await expect(holder).toContainText(/Held\s*by txn #\d+ User/);
  await expect(holder).toContainText('e2e hold');
  const holdTxn = Number(/txn #(\d+)/.exec((await holder.innerText()) ?? '')?.[1]);
  await expect(slot.getByRole('status')).toContainText(`Holding as txn #${holdTxn}`);

  // Meanwhile a write through the console of a second inspector: it waits for the slot.
  const writer = await openWindow();
  await openInspector(writer, peer, 'Documents');
  await runInConsole(writer, 'INSERT INTO orders DOCUMENTS (:order)', { order: { _id: 'behind-the-hold', total: 1 } });
  await expect(writer.getByRole('status').filter({ hasText: 'Running' })).toBeVisible();

  const waiting = slot.getByRole('list', { name: 'Writers waiting for the slot' }).getByRole('listitem');
  await expect(waiting).toHaveCount(1);
  await expect(waiting.first()).toContainText('User');
  await expect(waiting.first()).toContainText('DEBUG');
  await expect(page.getByRole('tab', { name: /Blocked waits/ })).toContainText('1');

  // The hold ends; the write commits; the wait is recorded.
  await expect(writer.getByRole('status').filter({ hasText: 'document changed' })).toContainText('1 document changed', { timeout: (HOLD_SECONDS + 30) * 1000 });
  await expect(slot).toContainText('Free');
  await expect(waiting).toHaveCount(0);
  await page.getByRole('tab', { name: /Blocked waits/ }).click();
  const wait = page
    .getByRole('table', { name: 'Blocked waits' })
    .getByRole('row')
    .filter({ hasText: `#${holdTxn}` });
  await expect(wait).toHaveCount(1);
  await expect(wait).toContainText('User');
  await expect(wait).toContainText('DEBUG');
  const waited = Number(/([\d.]+) s\b/.exec(await wait.getByRole('cell').nth(2).innerText())?.[1]);
  expect(waited).toBeGreaterThanOrEqual(10);
  expect(waited).toBeLessThanOrEqual(HOLD_SECONDS);
  // The timeline draws it too.
  await expect(page.getByRole('group', { name: /^Timeline of write transactions/ }).getByTestId('txn-wait')).toHaveCount(1);

  // Both transactions are in the commit list: the hold's and the write's after it.
  await page.getByRole('tab', { name: /Commits/ }).click();
  const commits = page.getByRole('table', { name: 'Commits' });
  await expect(commits.getByRole('row').filter({ hasText: 'e2e hold' })).toHaveCount(1);
  await expect(commits.getByRole('row').filter({ hasText: 'orders' })).toHaveCount(1);

  // The peer logged the wait at DEBUG, every 10 s, naming the holder.
  await openInspector(writer, peer, 'Logs');
  await filterLogs(writer, 'Write txn blocked');
  await expectLogSequence(writer, [
    new RegExp(`^Write txn blocked; .*originator = User; blocked_by = User; blocking_txn_id = ${holdTxn}; blocked_for = 10 s$`),
  ]);
});
