/**
 * `syncmesh inspect` as a real process (`node_modules/.bin/node bin/syncmesh.js inspect …`): it
 * prints exactly one URL line, serves the page and the bridge there, and exits 0 on SIGTERM or
 * SIGINT; its local Big Peer keeps its identity across restarts; bad input exits 1 or 2 in one line.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { exitOf, startNode, stopAll, until, type Run } from '../testing/cli/child-process-fixture.ts';

const URL_LINE = /^SyncMesh inspector: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/)\n$/;

/** Waits for the one stdout line and answers the URL in it. */
async function urlOf(run: Run): Promise<string> {
  await until(run, () => run.stdout.endsWith('\n'), 'the URL line');
  const match = URL_LINE.exec(run.stdout);
  if (match === null) throw new Error(`standard output is not one URL line: ${JSON.stringify(run.stdout)}`);
  return match[1] as string;
}

/** One call over the page's WebSocket. */
function callOverSocket(pageUrl: string, channel: string): Promise<{ ok: boolean; value?: any; error?: any }> {
  const page = new URL(pageUrl);
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://${page.host}${page.pathname}ws`, { origin: page.origin, handshakeTimeout: 5_000 });
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`no answer to ${channel}`));
    }, 10_000);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'call', id: 1, channel, input: {} })));
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { type: string; id?: number; result?: { ok: boolean } };
      if (frame.type !== 'result' || frame.id !== 1) return;
      clearTimeout(timer);
      socket.close();
      resolve(frame.result as { ok: boolean });
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

describe('syncmesh inspect (process)', () => {
  let dir: string;
  let env: Record<string, string>;

  const inspect = (args: readonly string[], extraEnv: Record<string, string> = {}): Run =>
    startNode(['bin/syncmesh.js', 'inspect', ...args], { ...env, ...extraEnv });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'inspect-cli-'));
    // A stand-in build, so that the test needs no `electron-vite build`.
    const renderer = join(dir, 'renderer');
    mkdirSync(renderer);
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>SyncMesh inspector stand-in</title>');
    env = { SYNCMESH_RENDERER_DIR: renderer };
  });
  afterEach(async () => {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints one URL line, serves the page and the bridge with a local Big Peer, and exits 0 on SIGTERM', async () => {
    const run = inspect(['--local-big-peer', join(dir, 'big-peer'), '--store', join(dir, 'peer')]);
    const url = await urlOf(run);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('SyncMesh inspector stand-in');
    expect((await fetch(new URL('/', url))).status).toBe(404);
    const overview = await callOverSocket(url, 'overview:get');
    expect(overview.ok).toBe(true);
    // It syncs with its local Big Peer.
    await until(run, () => run.stderr.includes('Sync started'), 'Sync started');
    expect(run.stderr).toMatch(/Inspecting the store in .*peer, syncing with the local Big Peer at http:\/\/127\.0\.0\.1:\d+ \(app local-[0-9a-f]{12}/);
    run.child.kill('SIGTERM');
    expect(await exitOf(run)).toBe(0);
    expect(run.stdout).toMatch(URL_LINE);
    expect(run.stderr).toContain('Deallocating');
    await expect(fetch(url)).rejects.toThrow();
  });

  it('keeps the local Big Peer identity across restarts, with a new URL token each time', async () => {
    const identityFile = join(dir, 'big-peer', 'identity.json');
    const first = inspect(['--local-big-peer', join(dir, 'big-peer')]);
    const firstUrl = await urlOf(first);
    const identity = readFileSync(identityFile, 'utf8');
    first.child.kill('SIGINT');
    expect(await exitOf(first)).toBe(0);
    const second = inspect(['--local-big-peer', join(dir, 'big-peer')]);
    const secondUrl = await urlOf(second);
    expect(readFileSync(identityFile, 'utf8')).toBe(identity);
    expect(second.stderr).toContain(`app ${(JSON.parse(identity) as { appID: string }).appID}`);
    expect(new URL(secondUrl).pathname).not.toBe(new URL(firstUrl).pathname);
    second.child.kill('SIGTERM');
    expect(await exitOf(second)).toBe(0);
  });

  it('says in one line that the page is not built, and exits 1', async () => {
    const run = inspect([], { SYNCMESH_RENDERER_DIR: join(dir, 'nowhere') });
    expect(await exitOf(run)).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ error: { code: 'cli/usage', message: expect.stringContaining('npm run build') } });
  });

  it('refuses a malformed settings.json of a user-data folder without touching it, and exits 1', async () => {
    const userData = join(dir, 'user-data');
    mkdirSync(userData);
    writeFileSync(join(userData, 'settings.json'), '{"bigPeerURL": "http://127.0.0.1:9"}');
    const run = inspect(['--user-data', userData]);
    expect(await exitOf(run)).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('unknown field(s) bigPeerURL');
    expect(readFileSync(join(userData, 'settings.json'), 'utf8')).toBe('{"bigPeerURL": "http://127.0.0.1:9"}');
  });

  it('refuses a malformed command line with status 2', async () => {
    for (const args of [
      ['--port', 'x'],
      ['--app-id', 'a'],
      ['--user-data', dir, '--store', dir],
      ['--local-big-peer', dir, '--app-id', 'a', '--playground-token', 't', '--big-peer', 'http://h'],
      ['extra'],
    ]) {
      const run = inspect(args);
      expect([args, await exitOf(run)]).toEqual([args, 2]);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('"code":"cli/usage"');
    }
  });
});
