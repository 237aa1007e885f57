/**
 * `npm start` and `npm run electron:install` fetching Electron, for real but offline: a mirror on
 * 127.0.0.1 in @electron/get's layout (scripts/electron-mirror-fixture.ts) serves a release zip
 * holding a stand-in `electron` that records its arguments. The scratch project's
 * node_modules/electron starts without a binary and with an empty cache, as after `npm install`.
 * No test here touches the internet.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitOf, startNode, stopAll, until, type Run } from '../src/testing/cli/child-process-fixture.ts';
import { ELECTRON_VERSION, scratchProject, sha256, standInRelease, startMirror, ZIP_NAME, type Mirror } from './electron-mirror-fixture.ts';

const asRoot = process.getuid?.() === 0;

describe('npm start fetching Electron from a mirror', () => {
  let project: string;
  let mirror: Mirror | undefined;
  let env: Record<string, string>;
  const release = standInRelease();

  beforeEach(() => {
    project = scratchProject();
    mkdirSync(join(project, 'renderer'));
    writeFileSync(join(project, 'renderer', 'index.html'), '<!doctype html><title>stand-in inspector</title>');
    env = {
      electron_config_cache: join(project, 'electron-cache'),
      electron_use_remote_checksums: '1',
      XDG_CONFIG_HOME: join(project, 'config'),
      SYNCMESH_RENDERER_DIR: join(project, 'renderer'),
      STAND_IN_LOG: join(project, 'stand-in.log'),
      // Whatever the developer's own npm or shell configures for Electron stays out of the test.
      npm_config_electron_mirror: '',
      ELECTRON_CUSTOM_DIR: '',
      npm_config_electron_custom_dir: '',
      ELECTRON_CUSTOM_FILENAME: '',
      ELECTRON_OVERRIDE_DIST_PATH: '',
      ELECTRON_SKIP_BINARY_DOWNLOAD: '',
      SYNCMESH_ELECTRON_FETCH_TIMEOUT: '',
    };
  });
  afterEach(async () => {
    await stopAll();
    await mirror?.close();
    mirror = undefined;
    rmSync(project, { recursive: true, force: true });
  });

  const start = (extra: Record<string, string> = {}): Run => startNode([join(project, 'scripts/start.js')], { ...env, ...extra });
  const electronDir = (): string => join(project, 'node_modules/electron');
  const launches = (): { args: string[]; main: string | null }[] =>
    existsSync(env.STAND_IN_LOG as string)
      ? readFileSync(env.STAND_IN_LOG as string, 'utf8')
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line))
      : [];
  const expectBrowserMode = async (run: Run): Promise<void> => {
    await until(run, () => /SyncMesh inspector: \S+\n/.test(run.stdout), 'the inspector URL');
    expect(run.stdout).toMatch(/Electron's binary is not available on this machine \(.*\), so the inspector opens in browser mode instead/);
    const url = /SyncMesh inspector: (http:\/\/127\.0\.0\.1:\d+\/\S+\/)\n/.exec(run.stdout)?.[1] as string;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('stand-in inspector');
    expect(existsSync(join(electronDir(), 'path.txt'))).toBe(false);
  };

  it('downloads the release with progress, checks it against the mirror’s SHASUMS256.txt, unpacks it and launches it with the built app', async () => {
    mirror = await startMirror(release);
    const run = start({ ELECTRON_MIRROR: mirror.url });
    expect(await exitOf(run)).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      `Electron ${ELECTRON_VERSION}'s binary has not been downloaded yet: fetching it now, as Electron's installer does (no byte for 20 s ends the attempt).`,
    );
    expect(lines[1]).toBe(
      `Downloading Electron ${ELECTRON_VERSION} from ${mirror.url}v${ELECTRON_VERSION}/${ZIP_NAME} (${(release.length / 1048576).toFixed(1)} MB)`,
    );
    // Plain lines, not a TTY: one a quarter.
    const percents = lines.slice(2, 6).map((line) => Number(/^  [\d.]+ MB of [\d.]+ MB \((\d+)%\)$/.exec(line)?.[1]));
    percents.forEach((percent, quarter) => expect(percent).toBeGreaterThanOrEqual(25 * (quarter + 1)));
    expect(percents[3]).toBe(100);
    expect(lines[6]).toBe(`Electron ${ELECTRON_VERSION} is installed (checksum verified): ${join(electronDir(), 'dist', 'electron')}`);
    expect(mirror.requests).toEqual([`/v${ELECTRON_VERSION}/${ZIP_NAME}`, `/v${ELECTRON_VERSION}/SHASUMS256.txt`]);
    // install.js's files: the binary (executable), dist/version, path.txt; the zip in the cache.
    expect(statSync(join(electronDir(), 'dist', 'electron')).mode & 0o111).not.toBe(0);
    expect(readFileSync(join(electronDir(), 'path.txt'), 'utf8')).toBe('electron');
    expect(readFileSync(join(electronDir(), 'dist', 'version'), 'utf8')).toBe(ELECTRON_VERSION);
    expect(
      readdirSync(env.electron_config_cache as string, { recursive: true })
        .map(String)
        .some((f) => f.endsWith(ZIP_NAME)),
    ).toBe(true);
    // Launched once, on the project (Electron reads its package.json "main": the built main file).
    expect(launches()).toEqual([{ args: asRoot ? [project, '--no-sandbox'] : [project], main: './out/main/index.js' }]);
    if (asRoot) expect(run.stdout).toContain('Running as root: Electron is started with --no-sandbox');

    // The next start launches at once: nothing is fetched again.
    const again = start({ ELECTRON_MIRROR: mirror.url });
    expect(await exitOf(again)).toBe(0);
    expect(again.stdout).not.toContain('Downloading');
    expect(mirror.requests).toHaveLength(2);
    expect(launches()).toHaveLength(2);
  });

  it('refuses a download whose checksum does not match SHASUMS256.txt in one line, then opens browser mode', async () => {
    mirror = await startMirror(release, { checksum: sha256(Buffer.from('something else')) });
    const run = start({ ELECTRON_MIRROR: mirror.url });
    await expectBrowserMode(run);
    expect(run.stderr).toContain(
      `Could not fetch Electron ${ELECTRON_VERSION}: checksum mismatch: ${ZIP_NAME} does not match the mirror's SHASUMS256.txt, so it was refused; check the mirror (ELECTRON_MIRROR) serves Electron ${ELECTRON_VERSION}'s own files, then run \`npm run electron:install\`\n`,
    );
    expect(run.stderr.split('\n').filter((line) => line.startsWith('Could not fetch'))).toHaveLength(1);
    expect(launches()).toEqual([]);
    // A refused download is not cached.
    const cache = env.electron_config_cache as string;
    expect(
      existsSync(cache) &&
        readdirSync(cache, { recursive: true })
          .map(String)
          .some((f) => f.endsWith(ZIP_NAME)),
    ).toBe(false);
  });

  it('checks against the electron package’s checksums.json when remote checksums are off, as install.js does', async () => {
    mirror = await startMirror(release);
    const run = start({ ELECTRON_MIRROR: mirror.url, electron_use_remote_checksums: '' });
    await expectBrowserMode(run);
    expect(run.stderr).toContain(`checksum mismatch: ${ZIP_NAME} does not match the checksums.json of the electron package, so it was refused`);
    expect(mirror.requests).toEqual([`/v${ELECTRON_VERSION}/${ZIP_NAME}`]);
  });

  it('honours ELECTRON_CUSTOM_DIR', async () => {
    mirror = await startMirror(release, { dir: `custom/${ELECTRON_VERSION}` });
    const run = start({ ELECTRON_MIRROR: mirror.url, ELECTRON_CUSTOM_DIR: 'custom/{{ version }}' });
    expect(await exitOf(run)).toBe(0);
    expect(mirror.requests[0]).toBe(`/custom/${ELECTRON_VERSION}/${ZIP_NAME}`);
    expect(launches()).toHaveLength(1);
  });

  it('gives up on a mirror that accepts and never answers within the bound, says why in one line and opens browser mode', async () => {
    mirror = await startMirror(release, { mode: 'stall-before-answer' });
    const started = Date.now();
    const run = start({ ELECTRON_MIRROR: mirror.url, SYNCMESH_ELECTRON_FETCH_TIMEOUT: '2' });
    await until(run, () => run.stdout.includes('so the inspector opens in browser mode'), 'the fallback line');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(2000);
    expect(elapsed).toBeLessThan(2000 + 8000); // the bound, and a process start
    expect(run.stderr).toContain(`Could not fetch Electron ${ELECTRON_VERSION}: no byte from ${new URL(mirror.url).host} for 2 s; set ELECTRON_MIRROR=`);
    await expectBrowserMode(run);
  });

  it('gives up on a mirror that stops sending in the middle of the zip', async () => {
    mirror = await startMirror(release, { mode: 'stall-mid-body' });
    const run = start({ ELECTRON_MIRROR: mirror.url, SYNCMESH_ELECTRON_FETCH_TIMEOUT: '1' });
    await expectBrowserMode(run);
    expect(run.stdout).toMatch(/^  [\d.]+ MB of [\d.]+ MB \(\d+%\)$/m);
    expect(run.stderr).toContain(`no byte from ${new URL(mirror.url).host} for 1 s`);
  });

  it('says at once that a mirror refused the connection', async () => {
    mirror = await startMirror(release);
    const refused = mirror.url;
    await mirror.close();
    mirror = undefined;
    const run = start({ ELECTRON_MIRROR: refused });
    await expectBrowserMode(run);
    expect(run.stderr).toContain(`Could not fetch Electron ${ELECTRON_VERSION}: ${new URL(refused).host} refused the connection; set ELECTRON_MIRROR=`);
  });

  it('fetches nothing with ELECTRON_SKIP_BINARY_DOWNLOAD and says so', async () => {
    mirror = await startMirror(release);
    const run = start({ ELECTRON_MIRROR: mirror.url, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    await expectBrowserMode(run);
    expect(run.stdout).toContain('ELECTRON_SKIP_BINARY_DOWNLOAD is set, so it is not fetched');
    expect(mirror.requests).toEqual([]);
  });

  it('npm run electron:install fetches it alone, exits 0, and says it is there on a second run', async () => {
    mirror = await startMirror(release);
    const install = startNode([join(project, 'scripts/electron-install.js')], { ...env, ELECTRON_MIRROR: mirror.url });
    expect(await exitOf(install)).toBe(0);
    expect(install.stdout).toContain(`Electron ${ELECTRON_VERSION} is installed (checksum verified)`);
    expect(launches()).toEqual([]);
    const again = startNode([join(project, 'scripts/electron-install.js')], { ...env, ELECTRON_MIRROR: mirror.url });
    expect(await exitOf(again)).toBe(0);
    expect(again.stdout.trim()).toBe(`Electron ${ELECTRON_VERSION} is installed: ${join(electronDir(), 'dist', 'electron')}`);
  });

  it('npm run electron:install exits 1 with the one line when the mirror is unreachable', async () => {
    mirror = await startMirror(release);
    const refused = mirror.url;
    await mirror.close();
    mirror = undefined;
    const install = startNode([join(project, 'scripts/electron-install.js')], { ...env, ELECTRON_MIRROR: refused });
    expect(await exitOf(install)).toBe(1);
    expect(install.stderr.trim().split('\n')).toHaveLength(1);
    expect(install.stderr).toContain('refused the connection');
  });
});
