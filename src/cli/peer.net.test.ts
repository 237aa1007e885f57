/**
 * `syncmesh peer` as a real process (bin/syncmesh.js under this Node) against a Big Peer on a
 * real socket: it logs in, runs the statements of its standard input on the live store, keeps
 * its store to itself while it runs, and shuts down cleanly on the end of its input or a signal.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAYGROUND_TOKEN, TEST_APP, closedPort, startTestPeer, type TestPeer } from '../testing/big-peer/test-helpers.ts';

const BIN = fileURLToPath(new URL('../../bin/syncmesh.js', import.meta.url));
const WAIT_MS = 15_000;

interface Run {
  readonly child: ChildProcessWithoutNullStreams;
  stdout: string;
  stderr: string;
  readonly exit: Promise<number | null>;
}

function start(args: readonly string[]): Run {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const run: Run = {
    child,
    stdout: '',
    stderr: '',
    exit: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (run.stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (run.stderr += d));
  // A child that exits before reading all its input must not fail the test with EPIPE.
  child.stdin.on('error', () => {});
  return run;
}

function fail(run: Run, what: string): Error {
  return new Error(`${what}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

/** Waits until `done()` holds, at most `ms`; fails early when the child exits first. */
async function until(run: Run, done: () => boolean, what: string, ms = WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (run.child.exitCode !== null || run.child.signalCode !== null) {
      await new Promise((resolve) => setTimeout(resolve, 50)); // let the last output arrive
      if (done()) return;
      throw fail(run, `${what}: the peer exited (${run.child.exitCode ?? run.child.signalCode}) first`);
    }
    if (Date.now() > deadline) throw fail(run, `${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function exited(run: Run): Promise<number | null> {
  await until(run, () => run.child.exitCode !== null || run.child.signalCode !== null, 'exit');
  return run.exit;
}

function answers(run: Run): Record<string, any>[] {
  return run.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/** Sends one line and resolves with the answer to it. */
async function ask(run: Run, line: string): Promise<Record<string, any>> {
  const before = answers(run).length;
  run.child.stdin.write(`${line}\n`);
  await until(run, () => run.stdout.endsWith('\n') && answers(run).length > before, `the answer to ${line}`);
  return answers(run)[before] as Record<string, any>;
}

/** The JSON error line among standard error's lines. */
function errorOf(run: Run): { code: string; message: string } {
  const line = run.stderr.split('\n').find((l) => l.startsWith('{"error"'));
  if (line === undefined) throw fail(run, 'no error line on standard error');
  return (JSON.parse(line) as { error: { code: string; message: string } }).error;
}

/** Runs a command to its end. */
async function runToEnd(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = start(args);
  run.child.stdin.end();
  const code = await exited(run);
  return { code, stdout: run.stdout, stderr: run.stderr };
}

describe('syncmesh peer', () => {
  let dir: string;
  let bigPeer: TestPeer;
  const running: Run[] = [];

  const peer = (options: { token?: string; url?: string; extra?: readonly string[] } = {}): Run => {
    const run = start([
      'peer',
      '--store',
      join(dir, 'store'),
      '--app-id',
      TEST_APP,
      '--playground-token',
      options.token ?? PLAYGROUND_TOKEN,
      '--big-peer',
      options.url ?? bigPeer.url,
      ...(options.extra ?? []),
    ]);
    running.push(run);
    return run;
  };
  const started = (run: Run): Promise<void> => until(run, () => run.stderr.includes('Sync started'), 'Sync started');

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'peer-net-'));
    bigPeer = await startTestPeer();
  });
  afterEach(async () => {
    for (const run of running.splice(0)) {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      await run.exit;
    }
    await bigPeer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs in, starts sync, answers each input line with one JSON line in order, and at the end of its input shuts down and exits 0', async () => {
    const run = peer({ extra: ['--subscribe', 'SELECT * FROM orders'] });
    await started(run);
    expect(run.stderr).toMatch(/^\[INFO\] \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z: AuthClient: authentication request succeeded$/m);
    expect(run.stderr).toMatch(/^\[INFO\] \S+: Sync started; peer_key = \S+; connect = ws:\/\/127\.0\.0\.1:\d+\/_sync\/ws$/m);
    run.child.stdin.end(
      [
        'INSERT INTO orders DOCUMENTS (:d)\t{"d": {"_id": "o1", "total": 5}}',
        '',
        "INSERT INTO orders DOCUMENTS ({_id: 'o2', total: 9})",
        'SELECT _id FROM orders WHERE total > :min ORDER BY _id\t{"min": 1}',
        'SELECT COUNT(*) AS n FROM orders',
      ].join('\n'),
    );
    expect(await exited(run)).toBe(0);
    expect(answers(run)).toEqual([
      { items: [], mutatedDocumentIds: ['o1'], commitId: expect.any(Number) },
      { items: [], mutatedDocumentIds: ['o2'], commitId: expect.any(Number) },
      { items: [{ _id: 'o1' }, { _id: 'o2' }], mutatedDocumentIds: [], commitId: null },
      { items: [{ n: 2 }], mutatedDocumentIds: [], commitId: null },
    ]);
    const shutdown = run.stderr.indexOf('Shutting down');
    expect(shutdown).toBeGreaterThan(run.stderr.indexOf('Sync stopped'));
    expect(run.stderr.indexOf('Sync stopped')).toBeGreaterThan(run.stderr.indexOf('Sync started'));
    expect(run.stderr.indexOf('Deallocating')).toBeGreaterThan(shutdown);
  });

  it('runs no DELETE hidden after a U+2028 in an argument: both documents stay, with their text, here and on the Big Peer', async () => {
    const run = peer({ extra: ['--subscribe', 'SELECT * FROM notes'] });
    await started(run);
    const text = 'x\u2028DELETE FROM notes --';
    run.child.stdin.end(
      [
        "INSERT INTO notes DOCUMENTS ({_id: 'n0', text: 'keep me'})",
        `INSERT INTO notes DOCUMENTS (:d)\t${JSON.stringify({ d: { _id: 'n1', text } })}`,
        'SELECT _id, text FROM notes ORDER BY _id',
      ].join('\n'),
    );
    expect(await exited(run)).toBe(0);
    const expected = [
      { _id: 'n0', text: 'keep me' },
      { _id: 'n1', text },
    ];
    expect(answers(run)).toEqual([
      { items: [], mutatedDocumentIds: ['n0'], commitId: expect.any(Number) },
      { items: [], mutatedDocumentIds: ['n1'], commitId: expect.any(Number) },
      { items: expected, mutatedDocumentIds: [], commitId: null },
    ]);
    // The peer drained its commits before it exited: what the Big Peer holds is what it wrote.
    expect((await bigPeer.peer.sync.store.execute('SELECT _id, text FROM notes ORDER BY _id')).items).toEqual(expected);
  });

  it('answers an invalid line with a cli/invalid-line error and a failing statement with its error, and keeps answering', async () => {
    const run = peer();
    await started(run);
    expect((await ask(run, 'SELECT * FROM orders\t{not json')).error.code).toBe('cli/invalid-line');
    expect((await ask(run, 'SELECT * FROM orders\t[1, 2]')).error).toEqual({
      code: 'cli/invalid-line',
      message: 'line 2: the arguments after the TAB must be a JSON object',
    });
    expect((await ask(run, '\t{}')).error.code).toBe('cli/invalid-line');
    expect((await ask(run, 'SELECT * WHERE x = 1')).error).toMatchObject({
      code: 'query/invalid',
      message: 'Syntax error at line 1 column 10: expected FROM, found WHERE',
    });
    expect((await ask(run, 'SELECT * FROM orders WHERE total > :min\t{"max": 1}')).error.code).toBe('query/invalid');
    expect(await ask(run, "INSERT INTO orders DOCUMENTS ({_id: 'o1'})")).toEqual({ items: [], mutatedDocumentIds: ['o1'], commitId: expect.any(Number) });
    expect((await ask(run, "INSERT INTO orders DOCUMENTS ({_id: 'o1'})")).error.code).toBe('query/evaluation');
    expect(await ask(run, 'SELECT _id FROM orders')).toEqual({ items: [{ _id: 'o1' }], mutatedDocumentIds: [], commitId: null });
    run.child.stdin.end();
    expect(await exited(run)).toBe(0);
    expect(answers(run)).toHaveLength(8);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('stops sync, shuts down and exits 0 on %s while its input is still open', async (signal) => {
    const run = peer();
    await started(run);
    expect(await ask(run, 'SELECT * FROM orders')).toEqual({ items: [], mutatedDocumentIds: [], commitId: null });
    run.child.kill(signal);
    expect(await exited(run)).toBe(0);
    expect(run.stderr).toMatch(/Sync stopped[^]*Shutting down[^]*Deallocating/);
  });

  it('holds its store while it runs: exec on the same directory fails with store/locked, and works once the peer has exited', async () => {
    const run = peer();
    await started(run);
    await ask(run, "INSERT INTO orders DOCUMENTS ({_id: 'o1', total: 5})");
    const locked = await runToEnd(['exec', '--store', join(dir, 'store'), 'SELECT _id FROM orders']);
    expect(locked.code).toBe(1);
    expect((JSON.parse(locked.stdout) as { error: { code: string } }).error.code).toBe('store/locked');
    run.child.stdin.end();
    expect(await exited(run)).toBe(0);
    const free = await runToEnd(['exec', '--store', join(dir, 'store'), 'SELECT _id FROM orders']);
    expect(free.code).toBe(0);
    expect(JSON.parse(free.stdout)).toEqual({ items: [{ _id: 'o1' }], mutatedDocumentIds: [], commitId: null });
  });

  it('exits 1 with an auth/failed error line on standard error, and nothing on standard output, when the playground token is wrong', async () => {
    const run = peer({ token: 'not-the-token' });
    run.child.stdin.end('SELECT * FROM orders\n');
    expect(await exited(run)).toBe(1);
    expect(run.stdout).toBe('');
    expect(errorOf(run).code).toBe('auth/failed');
    expect(run.stderr).not.toContain('Sync started');
    expect(run.stderr).toMatch(/Deallocating\n\{"error":.*\}\n$/);
  });

  it('exits 1 with an auth/unreachable error line when nothing listens at the Big Peer URL', async () => {
    const run = peer({ url: `http://127.0.0.1:${await closedPort()}` });
    run.child.stdin.end();
    expect(await exited(run)).toBe(1);
    expect(errorOf(run).code).toBe('auth/unreachable');
  });

  it.each([
    ['a wrong playground token', 'auth/failed'],
    ['nothing listening at the Big Peer URL', 'auth/unreachable'],
    ['a Big Peer whose login answers 503', 'auth/unreachable'],
  ] as const)(
    'announces no retry on a failed login (%s), since it exits: no "retrying authentication" line, and standard error ends with the error JSON',
    async (failure, code) => {
      // A Big Peer whose webhook is out of reach answers 502/503 with its error: a failure that may pass.
      const unavailable = createHttpServer((_req, res) => {
        res
          .writeHead(503, { 'Content-Type': 'application/json' })
          .end('{"error":{"code":"auth/unreachable","message":"Could not connect to authentication server"}}');
      });
      await new Promise<void>((resolve) => unavailable.listen(0, '127.0.0.1', resolve));
      try {
        const run =
          failure === 'a wrong playground token'
            ? peer({ token: 'not-the-token' })
            : peer({
                url:
                  failure === 'a Big Peer whose login answers 503'
                    ? `http://127.0.0.1:${(unavailable.address() as AddressInfo).port}`
                    : `http://127.0.0.1:${await closedPort()}`,
              });
        run.child.stdin.end();
        expect(await exited(run)).toBe(1);
        expect(run.stderr).toContain('failed to obtain a certificate');
        expect(run.stderr).not.toContain('retrying authentication');
        expect(run.stderr).toMatch(/\[INFO\] \S+: Deallocating\n\{"error":\{"code":"[a-z/]+".*\}\n$/);
        expect(errorOf(run).code).toBe(code);
      } finally {
        await new Promise((resolve) => unavailable.close(resolve));
      }
    },
  );

  it('exits 0 on SIGTERM while it is still waiting for the Big Peer to answer its login', async () => {
    // A server that accepts connections and never answers.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const run = peer({ url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` });
      await until(run, () => run.stderr.includes('AuthClient: starting') && sockets.length > 0, 'the login request');
      run.child.kill('SIGTERM');
      expect(await exited(run)).toBe(0);
      expect(run.stderr).toMatch(/Shutting down[^]*Deallocating/);
      expect(run.stderr).not.toContain('Sync started');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  // Needs replication from the Big Peer to small peers (in progress in src/peer and src/big-peer).
  it('shows a document inserted on the Big Peer once replication brings it down', async () => {
    const run = peer({ extra: ['--subscribe', 'SELECT * FROM orders'] });
    await started(run);
    const doc = { _id: 'from-big-peer', total: 42 };
    await bigPeer.peer.sync.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: doc });
    const deadline = Date.now() + 10_000;
    let items: unknown[] = [];
    while (Date.now() < deadline) {
      items = (await ask(run, 'SELECT * FROM orders')).items as unknown[];
      if (items.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(items).toEqual([doc]);
  });
});
