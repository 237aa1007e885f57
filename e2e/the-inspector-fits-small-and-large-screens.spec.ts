/**
 * The inspector at 1024×700 and at 1920×1080: every panel tab shows its whole label, and the
 * mesh graph is drawn one unit a pixel, so its labels keep their size (issue 21, bug 3.7).
 */
import { expect, openInspector, test } from './fixtures.ts';
import { createMesh, type InspectedPeer } from './processes.ts';

const mesh = createMesh('screens');
let peer: InspectedPeer;

test.beforeAll(async () => {
  peer = await mesh.startPeer('a');
});
test.afterAll(() => mesh.stop());

for (const [width, height] of [
  [1024, 700],
  [1920, 1080],
] as const) {
  test(`at ${width}×${height}, every tab label is whole and the graph’s labels keep their size`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await openInspector(page, peer, 'Mesh');
    await expect(page.getByRole('group', { name: /^Mesh graph/ })).toBeVisible();
    const tabs = page.getByRole('tablist', { name: 'Panels' });
    // The tab strip does not scroll: nothing of it is hidden.
    const strip = await tabs.evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth }));
    expect(strip.scroll).toBeLessThanOrEqual(strip.client);
    const end = await page.locator('.topbar-end').boundingBox();
    for (const name of ['Overview', 'Documents', 'Subscriptions', 'Permissions', 'Transactions', 'Mesh', 'Logs', 'Eviction']) {
      const box = await tabs.getByRole('tab', { name }).boundingBox();
      expect(box, name).not.toBeNull();
      expect((box?.x ?? 0) + (box?.width ?? 0), `${name} ends before the buttons`).toBeLessThanOrEqual(end?.x ?? width);
    }
    // One unit a pixel: a label of 11.5 px is drawn about 11.5 px high, not shrunk or blown up.
    await expect(async () => {
      const heights = await page
        .locator('svg.mesh-graph text')
        .evaluateAll((texts) => texts.map((t) => t.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(t).fontSize)));
      expect(heights.length).toBeGreaterThan(0);
      for (const ratio of heights) expect(ratio).toBeGreaterThan(0.9);
      for (const ratio of heights) expect(ratio).toBeLessThan(1.6);
    }).toPass({ timeout: 5_000 });
  });
}
