/**
 * The example register app (examples/pos-register), installed as an app installs the package
 * (`npm install` of its `file:../..` dependency, which runs the compiled lib/), against a real Big
 * Peer: two registers and a back office, each on its own peer. A sale on register 1 reaches
 * register 2 and the back office through the Big Peer, and the inspector attached to register 2's
 * own peer (`serveInspector`) finds the order there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { resultRows, runInConsole } from './documents.ts';
import { expect, openInspector, REPLICATION_TIMEOUT_MS, test } from './fixtures.ts';
import { createMesh, type BigPeerProcess } from './processes.ts';

const PROJECT = resolve(import.meta.dirname, '..');
const EXAMPLE = join(PROJECT, 'examples', 'pos-register');
const READY = /POS [a-z-]+ "[^"]+": (http:\/\/127\.0\.0\.1:\d+\/)\n/;
const READY_WITH_INSPECTOR = /POS [a-z-]+ "[^"]+": (http:\/\/127\.0\.0\.1:\d+\/)\nInspector: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)\n/;

const mesh = createMesh('pos-register');
let bigPeer: BigPeerProcess;
const pages: Record<string, { readonly url: string; readonly inspector: string | undefined }> = {};

test.beforeAll(async () => {
  if (!existsSync(join(PROJECT, 'lib', 'peer', 'index.js'))) throw new Error('lib/ is not built: npm test builds it (npm run build:lib)');
  // As a user installs the example: its one dependency is the package in this checkout.
  const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--offline'], {
    cwd: EXAMPLE,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}` },
  });
  if (npm.status !== 0) throw new Error(`npm install in examples/pos-register failed: ${npm.stderr}`);
  bigPeer = await mesh.startBigPeer({ appID: 'pos' });
  const login = ['--big-peer', bigPeer.url, '--app-id', bigPeer.appID, '--playground-token', bigPeer.playgroundToken];
  const start = async (name: string, extra: readonly string[]): Promise<void> => {
    const data = join(mesh.folder(), name.toLowerCase().replace(/ /g, '-'));
    const { match } = await mesh.startProgram(
      name,
      join(EXAMPLE, 'register.js'),
      ['--name', name, '--data', data, ...login, ...extra],
      extra.includes('--inspect-port') ? READY_WITH_INSPECTOR : READY,
      EXAMPLE,
    );
    pages[name] = { url: match[1] as string, inspector: match[2] };
  };
  await Promise.all([start('Register 1', []), start('Register 2', ['--inspect-port', '0']), start('Back office', ['--role', 'back-office'])]);
});
test.afterAll(() => mesh.stop());

test('a sale on register 1 shows on register 2 and in the back office, and register 2’s own inspector finds the order', async ({ page, context }) => {
  await page.goto(pages['Register 1']?.url as string);
  await page.getByLabel('Quantity').fill('2');
  await page.getByRole('button', { name: 'Coffee · 3.50' }).click();
  await expect(page.getByRole('status')).toHaveText('Sold register-1-1: 7.00');
  await expect(page.getByRole('table', { name: 'Orders' }).getByRole('row', { name: /register-1-1/ })).toBeVisible();

  const register2 = await context.newPage();
  await register2.goto(pages['Register 2']?.url as string);
  await expect(register2.getByRole('table', { name: 'Orders' }).getByRole('row', { name: /register-1-1 Register 1 7\.00/ })).toBeVisible({
    timeout: REPLICATION_TIMEOUT_MS,
  });

  const backOffice = await context.newPage();
  await backOffice.goto(pages['Back office']?.url as string);
  await expect(backOffice.getByRole('table', { name: 'Sales per register' }).getByRole('row', { name: 'Register 1 1 7.00' })).toBeVisible({
    timeout: REPLICATION_TIMEOUT_MS,
  });
  await expect(backOffice.getByRole('table', { name: 'Orders' }).getByRole('row', { name: /register-1-1/ })).toBeVisible();

  // The inspector attached to register 2's own peer, by the URL the app printed.
  const inspector = await context.newPage();
  await openInspector(inspector, { inspectorUrl: pages['Register 2']?.inspector as string }, 'Documents');
  await runInConsole(inspector, "SELECT * FROM orders WHERE _id = 'register-1-1'");
  await expect(resultRows(inspector)).toHaveCount(1);
  await expect(resultRows(inspector).first()).toContainText('Register 1');
  await runInConsole(inspector, "SELECT * FROM line_items WHERE orderId = 'register-1-1'");
  await expect(resultRows(inspector)).toHaveCount(1, { timeout: REPLICATION_TIMEOUT_MS });
});
