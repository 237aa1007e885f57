/**
 * `syncmesh peer` in-process, for what needs no network: the command line, the refusals that
 * come before the peer logs in, and how it reads its input lines (on a store that does not sync).
 * The peer at work (login, statements, shutdown, signals) is in peer.net.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogHub, Sync } from '../peer/host.ts';
import { PEER_USAGE, answerLines, servePeer } from './peer.ts';

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
    [
      ['--store', 'd', '--app-id', 'a', '--playground-token', 't', '--big-peer', 'http://h', '--log-level', 'loud'],
      '--log-level takes one of ERROR, WARN, INFO, DEBUG, VERBOSE, not loud',
    ],
    [
      ['--store', 'd', '--app-id', 'a', '--playground-token', 't', '--big-peer', 'http://h', 'SELECT 1'],
      'unexpected argument SELECT 1: statements come on standard input',
    ],
    [
      ['--store', 'd', '--app-id', 'a', '--playground-token', 't', '--big-peer', 'http://h', '--drain-timeout', '10'],
      '--drain-timeout takes a duration such as 10s, 500ms or 2m (0: do not wait), not "10"',
    ],
    [
      ['--store', 'd', '--app-id', 'a', '--playground-token', 't', '--big-peer', 'http://h', '--drain-timeout=-1s'],
      '--drain-timeout takes a duration such as 10s, 500ms or 2m (0: do not wait), not "-1s"',
    ],
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

describe('syncmesh peer (input lines)', () => {
  let dir: string;
  let sync: Sync;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'peer-lines-'));
    const logHub = new LogHub();
    logHub.enabled = false;
    sync = new Sync({ persistenceDirectory: dir, logHub });
  });
  afterEach(() => {
    sync.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Feeds `input` (in the given chunks) to the line loop and collects its answers, once its input ends. */
  async function answer(chunks: readonly (string | Buffer)[]): Promise<{ ended: string; out: string }> {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let out = '';
    stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const ended = answerLines(sync, { stdin, stdout, stderr: new PassThrough() }, new Promise(() => {}));
    for (const chunk of chunks) stdin.write(chunk);
    stdin.end();
    return { ended: await ended, out };
  }

  it('runs no statement hidden after a U+2028 or U+2029 in the arguments, and stores the text intact', async () => {
    const texts = ['x\u2028DELETE FROM notes --', 'y\u2029DELETE FROM notes --'];
    const { ended, out } = await answer([
      "INSERT INTO notes DOCUMENTS ({_id: 'n0', text: 'keep me'})\n",
      `INSERT INTO notes DOCUMENTS (:d)\t${JSON.stringify({ d: { _id: 'n1', text: texts[0] } })}\n`,
      `INSERT INTO notes DOCUMENTS (:d)\t${JSON.stringify({ d: { _id: 'n2', text: texts[1] } })}\n`,
    ]);
    expect(ended).toBe('end');
    expect(
      out
        .split('\n')
        .slice(0, -1)
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([
      { items: [], mutatedDocumentIds: ['n0'], commitId: 1 },
      { items: [], mutatedDocumentIds: ['n1'], commitId: 2 },
      { items: [], mutatedDocumentIds: ['n2'], commitId: 3 },
    ]);
    const stored = await sync.store.execute('SELECT _id, text FROM notes ORDER BY _id');
    expect(stored.items).toEqual([
      { _id: 'n0', text: 'keep me' },
      { _id: 'n1', text: texts[0] },
      { _id: 'n2', text: texts[1] },
    ]);
  });

  it('ends lines at LF only, strips one CR before it, keeps a lone CR inside a line, and answers a last line without a newline', async () => {
    const { out } = await answer([
      'SELECT :a AS a FROM notes\t{"a":\r1}\r\n',
      "INSERT INTO notes DOCUMENTS ({_id: 'n1'})\r\n",
      '\r\n',
      'SELECT _id FROM notes\t{}',
    ]);
    expect(
      out
        .split('\n')
        .slice(0, -1)
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([
      { items: [], mutatedDocumentIds: [], commitId: null },
      { items: [], mutatedDocumentIds: ['n1'], commitId: 1 },
      { items: [{ _id: 'n1' }], mutatedDocumentIds: [], commitId: null },
    ]);
  });

  it('answers with the text intact when a line arrives split inside a CRLF and inside a UTF-8 character', async () => {
    const line = Buffer.from(`INSERT INTO notes DOCUMENTS (:d)\t${JSON.stringify({ d: { _id: 'n1', text: 'é\u2028€' } })}\r\n`);
    const euro = line.indexOf(Buffer.from('€')) + 1;
    const { out } = await answer([line.subarray(0, euro), line.subarray(euro, line.length - 1), line.subarray(line.length - 1)]);
    expect(JSON.parse(out)).toEqual({ items: [], mutatedDocumentIds: ['n1'], commitId: 1 });
    expect((await sync.store.execute('SELECT text FROM notes')).items).toEqual([{ text: 'é\u2028€' }]);
  });

  it('stops at once when stop comes while it waits for a line, leaving later lines unread, and lets go of its input', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let out = '';
    stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const ended = answerLines(sync, { stdin, stdout, stderr: new PassThrough() }, stopped);
    stdin.write("INSERT INTO notes DOCUMENTS ({_id: 'n1'})\n");
    while (out === '') await new Promise((resolve) => setTimeout(resolve, 5));
    stop();
    expect(await ended).toBe('stopped');
    stdin.write("INSERT INTO notes DOCUMENTS ({_id: 'n2'})\n");
    expect(stdin.listenerCount('data')).toBe(0);
    expect(stdin.isPaused()).toBe(true);
    expect(JSON.parse(out)).toEqual({ items: [], mutatedDocumentIds: ['n1'], commitId: 1 });
    expect((await sync.store.execute('SELECT _id FROM notes')).items).toEqual([{ _id: 'n1' }]);
  });

  it('escapes U+2028 and U+2029 in its answers, so that each answer is one line that parses back to the same text', async () => {
    const text = 'a\u2028b\u2029c';
    const { out } = await answer([`INSERT INTO notes DOCUMENTS (:d)\t${JSON.stringify({ d: { _id: 'n1', text } })}\n`, 'SELECT text FROM notes\n']);
    expect(out).not.toMatch(/[\u2028\u2029]/);
    const lines = out.split(/\r\n|[\n\r\u2028\u2029]/);
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[1] as string)).toEqual({ items: [{ text }], mutatedDocumentIds: [], commitId: null });
  });
});
