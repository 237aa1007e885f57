/** What Chromium's compositor made of the page: its layers, read over CDP. */
import type { Page } from '@playwright/test';
import { expect } from './fixtures.ts';

/**
 * The compositor layers of the page, with why each was made (`LayerTree` over CDP). A frame is
 * forced so that the tree is current.
 */
export async function compositorLayers(page: Page): Promise<{ reasons: string[]; size: string }[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    let latest: readonly { layerId: string; width: number; height: number }[] = [];
    cdp.on('LayerTree.layerTreeDidChange', (event) => {
      if (event.layers !== undefined) latest = event.layers;
    });
    await cdp.send('LayerTree.enable');
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          let n = 0;
          const frame = (): void => {
            document.body.dataset.frame = String(n);
            if (++n < 10) requestAnimationFrame(frame);
            else resolve();
          };
          requestAnimationFrame(frame);
        }),
    );
    await expect.poll(() => latest.length).toBeGreaterThan(0);
    const layers: { reasons: string[]; size: string }[] = [];
    for (const layer of latest) {
      const { compositingReasonIds = [] } = await cdp.send('LayerTree.compositingReasons', { layerId: layer.layerId });
      layers.push({ reasons: compositingReasonIds, size: `${layer.width}x${layer.height}` });
    }
    await cdp.send('LayerTree.disable');
    return layers;
  } finally {
    await cdp.detach();
  }
}
