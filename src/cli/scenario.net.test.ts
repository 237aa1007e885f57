/**
 * `syncmesh scenario evict-loop` in-process through `main(argv, io)`: it starts a real Big Peer
 * (SQLite, WebSocket on 127.0.0.1) and a small peer in a temporary directory, prints its header,
 * one line per cycle and the verdict, exits 0, and removes the directory; --dir keeps it; bad
 * command lines exit 2 with the usage on standard error.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.ts';

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(argv: readonly string[]): Promise<Ran> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const code = await main(argv, { stdin: new PassThrough(), stdout, stderr });
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: out, stderr: err };
}

const CYCLE_LINE =
  /^(wrong|right) cycle +\d+  evicted +\d+  re-synced +\d+  store +[\d.]+ [KMG]?B  memory +[\d.]+ [KMG]?B  received +[\d.]+ [KMG]?B  [\d.]+ s$/;

describe('syncmesh scenario evict-loop', () => {
  let dir: string;
  let savedTmp: string | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'scenario-cli-'));
    // The command's temporary directory lands here, so that the test sees it go.
    savedTmp = process.env['TMPDIR'];
    process.env['TMPDIR'] = join(dir);
  });
  afterEach(() => {
    if (savedTmp === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = savedTmp;
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the header, two lines per cycle and the verdict, exits 0 and leaves no temporary directory', async () => {
    const r = await run(['scenario', 'evict-loop', '--docs', '60', '--cycles', '2', '--settle-ms', '300']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^evict-loop: a Big Peer at http:\/\/127\.0\.0\.1:\d+ and a small peer, both on SQLite in .*syncmesh-evict-loop-\w+ \(temporary, removed at the end\)$/,
    );
    expect(lines[1]).toBe(
      'evict-loop: 60 documents in evict_loop_demo, 2 eviction cycles the wrong way (SELECT * FROM evict_loop_demo left subscribed), then 2 the right way (spec 3.2)',
    );
    const cycles = lines.slice(2, -1);
    expect(cycles).toHaveLength(4);
    for (const line of cycles) expect(line).toMatch(CYCLE_LINE);
    expect(cycles.map((l) => l.slice(0, 14))).toEqual(['wrong cycle  1', 'wrong cycle  2', 'right cycle  1', 'right cycle  2']);
    expect(lines.at(-1)).toMatch(
      /^verdict: evict\/re-sync loop reproduced: the wrong way re-synced 60 of 60 evicted documents .*; the right way re-synced 0 of 40 /,
    );
    // The peer's loop warnings went to standard error, not into the table.
    expect(r.stderr).toContain('EVICT overlaps an active subscription');
    expect(readdirSync(dir)).toEqual([]);
  }, 20_000);

  it("keeps both peers' data in --dir", async () => {
    const kept = join(dir, 'kept');
    const r = await run(['scenario', 'evict-loop', '--docs', '10', '--cycles', '1', '--settle-ms', '100', '--dir', kept]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`both on SQLite in ${kept}\n`);
    expect(existsSync(join(kept, 'peer'))).toBe(true);
    expect(existsSync(join(kept, 'big-peer', 'store'))).toBe(true);
  }, 20_000);

  it('prints its help with --help and exits 0', async () => {
    const r = await run(['scenario', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('syncmesh scenario evict-loop [--docs N] [--cycles K] [--dir DIR]');
    expect(r.stdout).toContain('Exit status: 0 when the wrong way reproduced the loop');
  });

  it('refuses a bad command line with the usage on standard error and exit 2', async () => {
    for (const argv of [
      ['scenario'],
      ['scenario', 'other'],
      ['scenario', 'evict-loop', '--docs', '0'],
      ['scenario', 'evict-loop', '--cycles', 'x'],
      ['scenario', 'evict-loop', '--nope'],
    ]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^\{"error":\{"code":"cli\/usage","message":".+"\}\}\n\nUsage:\n  syncmesh scenario evict-loop/);
    }
  });
});
