/**
 * `syncmesh peer` in-process, for what needs no network: the command line, and the refusals that
 * come before the peer logs in. The peer at work (login, statements, shutdown, signals) is in
 * peer.net.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogHub, Sync } from '../peer/index.ts';
import { PEER_USAGE, servePeer } from './peer.ts';

/** Runs the command with in-memory streams and a stop that never comes. */
async function peer(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  stdin.end();
  const code = await servePeer(args, { stdin, stdout, stderr }, new Promise(() => {}));
  return { code, stdout: out, stderr: err };
}

/** The JSON error line among standard error's lines. */
function errorOf(stderr: string): { code: string; message: string; details?: unknown } {
  const line = stderr.split('\n').find((l) => l.startsWith('{"error"'));
  if (line === undefined) throw new Error(`no error line in: ${stderr}`);
  return (JSON.parse(line) as { error: { code: string; message: string } }).error;
}

describe('syncmesh peer (command line)', () => {
  let dir: string;
  const login = (): string[] => ['--store', dir, '--app-id', 'app', '--playground-token', 't', '--big-peer', 'http://127.0.0.1:9'];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'peer-cli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints its help on standard output with --help and exits 0', async () => {
    const r = await peer(['--help']);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, PEER_USAGE, '']);
  });

  it.each([
    [[], '--store DIR is required'],
    [['--store', 'd'], '--app-id ID is required'],
    [['--store', 'd', '--app-id', 'a'], '--playground-token T is required'],
    [['--store', 'd', '--app-id', 'a', '--playground-token', 't'], '--big-peer URL is required'],
    [['--store', 'd', '--app-id', 'a', '--playground-token', 't', '--big-peer', 'ws://h'], '--big-peer takes an http or https URL, not ws://h'],
    [['--store', 'd', '--app-id', 'a', '--playground-token', 't', '--big-peer', 'http://h', '--log-level', 'loud'], '--log-level takes one of ERROR, WARN, INFO, DEBUG, VERBOSE, not loud'],
    [['--store', 'd', '--app-id', 'a', '--playground-token', 't', '--big-peer', 'http://h', 'SELECT 1'], 'unexpected argument SELECT 1: statements come on standard input'],
    [['--store', 'd', '--app-id', 'a', '--playground-token', 't', '--big-peer', 'http://h', '--drain-timeout', '10'], '--drain-timeout takes a duration such as 10s, 500ms or 2m (0: do not wait), not "10"'],
    [['--store', 'd', '--app-id', 'a', '--playground-token', 't', '--big-peer', 'http://h', '--drain-timeout=-1s'], '--drain-timeout takes a duration such as 10s, 500ms or 2m (0: do not wait), not "-1s"'],
  ])('refuses the command line %j with a cli/usage error line, the usage text and status 2', async (args, message) => {
    const r = await peer(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(errorOf(r.stderr)).toEqual({ code: 'cli/usage', message });
    expect(r.stderr).toContain(PEER_USAGE);
  });

  it('refuses an unknown option with status 2', async () => {
    const r = await peer([...login(), '--bogus']);
    expect(r.code).toBe(2);
    expect(errorOf(r.stderr).code).toBe('cli/usage');
  });

  it('exits 1 with the parse error of a bad --subscribe, naming the statement, before it logs in, and releases the store', async () => {
    const r = await peer([...login(), '--subscribe', 'SELECT * FROM orders', '--subscribe', 'SELECT * WHERE x = 1']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const error = errorOf(r.stderr);
    expect(error.code).toBe('query/invalid');
    expect(error.message).toBe('--subscribe "SELECT * WHERE x = 1": Syntax error at line 1 column 10: expected FROM, found WHERE');
    expect(r.stderr).not.toContain('AuthClient: starting');
    expect(r.stderr).toMatch(/Shutting down[^]*Deallocating\n\{"error"/);
    // The directory is free again.
    const logHub = new LogHub();
    logHub.enabled = false;
    new Sync({ persistenceDirectory: dir, logHub }).close();
  });

  it('exits 1 with store/locked when another store holds the directory', async () => {
    const logHub = new LogHub();
    logHub.enabled = false;
    const holder = new Sync({ persistenceDirectory: dir, logHub });
    try {
      const r = await peer(login());
      expect(r.code).toBe(1);
      expect(errorOf(r.stderr).code).toBe('store/locked');
    } finally {
      holder.close();
    }
  });
});
