/**
 * `syncmesh big-peer` as a real process (bin/syncmesh.js under this Node): API keys made and
 * revoked from the command line in a temporary directory, the server they unlock, and a clean
 * stop on SIGTERM that lets a request in flight finish.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call } from '../testing/big-peer/test-helpers.ts';

const BIN = fileURLToPath(new URL('../../bin/syncmesh.js', import.meta.url));
const WAIT_MS = 15_000;

interface Run {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  readonly exit: Promise<number | null>;
}

function start(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Run {
  const child = spawn(process.execPath, [BIN, 'big-peer', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  const run: Run = {
    child,
    stdout: '',
    stderr: '',
    exit: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  child.stdout?.on('data', (d: Buffer) => (run.stdout += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (run.stderr += d.toString('utf8')));
  return run;
}

async function bounded<T>(promise: Promise<T>, what: string, run: Run): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${WAIT_MS} ms\nstdout: ${run.stdout}\nstderr: ${run.stderr}`)), WAIT_MS);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a command to its end. */
async function runToEnd(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = start(args);
  const code = await bounded(run.exit, `syncmesh big-peer ${args.join(' ')}`, run);
  return { code, stdout: run.stdout, stderr: run.stderr };
}

/** Starts the server and resolves with its HTTP URL once it printed it. */
async function serve(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<{ run: Run; url: string }> {
  const run = start(args, env);
  const url = await bounded(
    new Promise<string>((resolve, reject) => {
      const look = (): void => {
        const m = /HTTP API: +(http:\/\/\S+)/.exec(run.stdout);
        if (m !== null) resolve(m[1] as string);
      };
      run.child.stdout?.on('data', look);
      void run.exit.then((code) => reject(new Error(`exited with ${code}: ${run.stderr}`)));
    }),
    'the printed URL',
    run,
  );
  return { run, url };
}

describe('syncmesh big-peer', () => {
  let dir: string;
  const running: Run[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'big-peer-cli-'));
  });
  afterEach(async () => {
    for (const run of running.splice(0)) {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
      await run.exit;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, lists and revokes API keys that the server then honours', async () => {
    const data = join(dir, 'data');
    const created = await runToEnd(['keys', 'create', '--data', data, '--name', 'ttl-job']);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^smk_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toMatch(/^Created API key key_[0-9a-f]{12} \(ttl-job\)\. This is the only time the key is shown/);
    const reader = (await runToEnd(['keys', 'create', '--data', data, '--name', 'reader', '--read-only'])).stdout.trim();

    const listed = await runToEnd(['keys', 'list', '--data', data]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(key);
    expect(listed.stdout).not.toContain('hash');
    const list = JSON.parse(listed.stdout) as { id: string; name: string; revoked: string | null; permissions: { write: { everything: boolean } } }[];
    expect(list.map((k) => [k.name, k.revoked, k.permissions.write.everything])).toEqual([
      ['ttl-job', null, true],
      ['reader', null, false],
    ]);

    let server = await serve(['--app-id', 'cli-app', '--port', '0', '--data', data]);
    running.push(server.run);
    const write = (k: string) =>
      call(`${server.url}/api/v4/store/write`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${k}` },
        body: { commands: [{ method: 'upsert', collection: 'orders', id: 'o1', value: { total: 1 } }] },
      });
    expect((await write(key)).status).toBe(200);
    expect((await write(reader)).status).toBe(403);
    // The keys commands need the store, which the running Big Peer holds.
    const locked = await runToEnd(['keys', 'list', '--data', data]);
    expect(locked.code).toBe(1);
    expect(locked.stderr).toMatch(/the store is in use, most likely by the running Big Peer/);
    server.run.child.kill('SIGTERM');
    expect(await bounded(server.run.exit, 'exit', server.run)).toBe(0);

    const id = list[0]?.id as string;
    const revoked = await runToEnd(['keys', 'revoke', '--data', data, id]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^Revoked API key ${id} \\(ttl-job\\) at \\d{4}-`));
    expect((await runToEnd(['keys', 'revoke', '--data', data, 'key_nope'])).code).toBe(1);

    server = await serve(['--app-id', 'cli-app', '--port', '0', '--data', data]);
    running.push(server.run);
    const refused = await write(key);
    expect(refused.status).toBe(401);
    expect(refused.json.error.message).toBe(`the API key ${id} was revoked`);
  });

  it('refuses a bad command line with status 2 and says why', async () => {
    const missing = await runToEnd(['--port', '0']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/an app id is required/);
    expect((await runToEnd(['keys', 'create'])).stderr).toMatch(/--data DIR or --storage URL is required/);
    expect((await runToEnd(['--app-id', 'a', '--bogus'])).code).toBe(2);
  });

  it('prints its URLs, logs app_id, and on SIGTERM answers the request waiting for a transaction at once (503) and exits 0', async () => {
    const config = join(dir, 'big-peer.json');
    writeFileSync(config, JSON.stringify({ appID: 'cli-app', port: 0, apiKeys: ['smk_config-key-0123456789'], txnWaitTimeoutMs: 1500 }));
    const { run, url } = await serve(['--config', config]);
    running.push(run);
    expect(run.stdout).toMatch(/WebSocket: ws:\/\/127\.0\.0\.1:\d+\/_sync\/ws/);
    expect(run.stderr).toMatch(/\[INFO\] \S+: Big Peer started; app_id = cli-app; url = http:\/\/127\.0\.0\.1:\d+; ws_url = ws:\/\//);
    // A request that waits 1.5 s for a transaction that never comes: in flight when SIGTERM arrives.
    const inFlight = call(`${url}/api/v4/store/execute`, {
      method: 'POST',
      headers: { Authorization: 'Bearer smk_config-key-0123456789', 'X-SYNC-TXN-ID': '1000' },
      body: { statement: 'SELECT * FROM t' },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    run.child.kill('SIGTERM');
    const sent = Date.now();
    const answer = await inFlight;
    expect(Date.now() - sent).toBeLessThan(1000); // not after the 1.5 s wait
    expect([answer.status, answer.json.error.code]).toEqual([503, 'store/closed']);
    expect(answer.headers.connection).toBe('close');
    expect(await bounded(run.exit, 'exit after SIGTERM', run)).toBe(0);
    expect(run.stdout).toMatch(/Big Peer stopped \(SIGTERM\)\n$/);
    expect(run.stderr).toMatch(/Big Peer stopped; app_id = cli-app/);
    expect(run.stderr).toMatch(/Deallocating/);
  });

  it('serves its own inspector with --inspect-port, read-only with --inspect-read-only, and refuses the flag without a port', async () => {
    // A stand-in build of the page: the real one is built after the unit tests.
    const page = join(dir, 'renderer');
    mkdirSync(page);
    writeFileSync(join(page, 'index.html'), '<!doctype html><title>SyncMesh</title>');
    const { run, url } = await serve(['--app-id', 'cli-app', '--port', '0', '--inspect-port', '0', '--inspect-read-only'], {
      ...process.env,
      SYNCMESH_RENDERER_DIR: page,
    });
    running.push(run);
    const inspector = /Inspector: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/) \(read-only\)\n/.exec(run.stdout)?.[1];
    expect(inspector, run.stdout).toBeDefined();
    expect(await (await fetch(inspector as string)).text()).toContain('<title>SyncMesh</title>');
    expect(inspector).not.toContain(new URL(url).port === new URL(inspector as string).port ? 'same port' : url);
    run.child.kill('SIGTERM');
    expect(await bounded(run.exit, 'exit after SIGTERM', run)).toBe(0);
    await expect(fetch(inspector as string)).rejects.toThrow();

    const alone = await runToEnd(['--app-id', 'a', '--port', '0', '--inspect-read-only']);
    expect([alone.code, alone.stderr]).toEqual([2, expect.stringContaining('--inspect-read-only needs --inspect-port PORT')]);
    const bad = await runToEnd(['--app-id', 'a', '--port', '0', '--inspect-port', 'abc']);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('--inspect-port takes a port number from 0 to 65535, not abc')]);
  });
});
