/**
 * Browser tests (`e2e/`): Debian's Chromium driven by Playwright, against real processes (a Big
 * Peer and headless peers serving the inspector in browser mode). `npm test` runs them after the
 * unit tests, once scripts/ensure-chromium.js has made sure the browser is there and the renderer
 * is built. Playwright's own browser download (`playwright install`) is never used.
 *
 * e2e/screenshots.spec.ts rewrites the committed docs/screenshots/*.png: it runs only with
 * SYNCMESH_SCREENSHOTS=1 (`npm run screenshots`).
 */
import { defineConfig } from '@playwright/test';

export const CHROMIUM_PATH = process.env['SYNCMESH_CHROMIUM'] ?? '/usr/bin/chromium';

/** Chromium's flags on these machines: headless, as root, and quiet on a closed network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  testIgnore: process.env['SYNCMESH_SCREENSHOTS'] === '1' ? [] : ['**/screenshots.spec.ts'],
  // The processes each test file starts share the machine's two cores: one file at a time.
  workers: 1,
  fullyParallel: false,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  retries: 0,
  reporter: [['list'], ['./e2e/summary-reporter.ts']],
  globalTeardown: './e2e/global-teardown.ts',
  outputDir: '.tmp/e2e-results',
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    viewport: { width: 1440, height: 900 },
    trace: 'off',
    screenshot: 'only-on-failure',
  },
});
