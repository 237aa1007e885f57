/**
 * `npm start` where Electron's binary is missing (ELECTRON_OVERRIDE_DIST_PATH names an empty
 * folder): one line says so, then the inspector runs in browser mode on the app's user-data
 * folder ($XDG_CONFIG_HOME/SyncMesh), with the local Big Peer when there is no settings.json,
 * and serves the page at the URL it prints, until it is stopped.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitOf, startNode, stopAll, until, type Run } from '../src/testing/cli/child-process-fixture.ts';
// @ts-expect-error -- plain JavaScript without declarations
import { electronArguments, electronUserDataDir } from './start.js';

describe('npm start without the Electron binary', () => {
  let dir: string;
  let env: Record<string, string>;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'npm-start-'));
    mkdirSync(join(dir, 'no-electron'));
    mkdirSync(join(dir, 'config'));
    // A stand-in build: the test does not run electron-vite (start.js skips the build then).
    mkdirSync(join(dir, 'renderer'));
    writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html><title>stand-in inspector</title>');
    env = { ELECTRON_OVERRIDE_DIST_PATH: join(dir, 'no-electron'), XDG_CONFIG_HOME: join(dir, 'config'), SYNCMESH_RENDERER_DIR: join(dir, 'renderer') };
  });
  afterEach(async () => {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (): Run => startNode(['scripts/start.js'], env);

  it('says so in one line, then serves the inspector at the URL it prints, with the local Big Peer, until SIGTERM', async () => {
    const run = start();
    await until(run, () => /SyncMesh inspector: \S+\n/.test(run.stdout), 'the URL line');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^Electron's binary is not available on this machine \(.*no-electron.* does not exist\), so the inspector opens in browser mode instead/,
    );
    const url = /^SyncMesh inspector: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/)$/.exec(lines[1] as string)?.[1];
    expect(url).toBeDefined();
    const page = await fetch(url as string);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('stand-in inspector');
    // The Electron app's user-data folder: the local Big Peer and the peer live there.
    const userData = join(dir, 'config', 'SyncMesh');
    expect(JSON.parse(readFileSync(join(userData, 'local-big-peer', 'identity.json'), 'utf8')).appID).toMatch(/^local-/);
    await until(run, () => run.stderr.includes('Sync started'), 'Sync started');
    expect(run.stderr).toContain(join(userData, 'peer'));
    run.child.kill('SIGTERM');
    expect(await exitOf(run)).toBe(0);
  });

  it('applies the settings.json rule: a malformed file stops it with the error, untouched', async () => {
    const userData = join(dir, 'config', 'SyncMesh');
    mkdirSync(userData);
    writeFileSync(join(userData, 'settings.json'), '{');
    const run = start();
    expect(await exitOf(run)).toBe(1);
    expect(run.stderr).toContain('settings.json are not JSON');
    expect(readFileSync(join(userData, 'settings.json'), 'utf8')).toBe('{');
  });
});

describe('electronUserDataDir', () => {
  it('names the folder Electron uses for the product name on each platform', () => {
    expect(electronUserDataDir({ XDG_CONFIG_HOME: '/x' }, 'linux', '/home/u')).toBe('/x/SyncMesh');
    expect(electronUserDataDir({}, 'linux', '/home/u')).toBe('/home/u/.config/SyncMesh');
    expect(electronUserDataDir({}, 'darwin', '/Users/u')).toBe('/Users/u/Library/Application Support/SyncMesh');
    expect(electronUserDataDir({ APPDATA: 'C:/Users/u/AppData/Roaming' }, 'win32', 'C:/Users/u')).toBe(join('C:/Users/u/AppData/Roaming', 'SyncMesh'));
  });
});

describe('electronArguments', () => {
  it('starts Electron on the project, with --no-sandbox added as root and only once', () => {
    const project = join(import.meta.dirname, '..');
    expect(electronArguments(['--inspect'], false)).toEqual([project, '--inspect']);
    expect(electronArguments([], true)).toEqual([project, '--no-sandbox']);
    expect(electronArguments(['--no-sandbox'], true)).toEqual([project, '--no-sandbox']);
  });
});
