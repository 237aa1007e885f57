import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/syncmesh.js', import.meta.url));

/** Runs the real `syncmesh` command in a child process on this Node.js. */
function syncmesh(args: string[], input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

function lines(text: string): unknown[] {
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
}

describe('syncmesh exec', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints one JSON result for a mutation and exits 0', async () => {
    const r = await syncmesh(['exec', '--store', dir, "INSERT INTO orders DOCUMENTS ({_id: 'o1', total: 5})"]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([{ items: [], mutatedDocumentIds: ['o1'], commitId: 1 }]);
  });

  it('keeps what it wrote for the next command on the same store', async () => {
    await syncmesh(['exec', '--store', dir, "INSERT INTO orders DOCUMENTS ({_id: 'o1', total: 5}), ({_id: 'o2', total: 9})"]);
    const r = await syncmesh(['exec', '--store', dir, '--args', '{"min": 6}', 'SELECT _id FROM orders WHERE total > :min']);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([{ items: [{ _id: 'o2' }], mutatedDocumentIds: [], commitId: null }]);
  });

  it('prints a parse error with its code and position and exits 1', async () => {
    const r = await syncmesh(['exec', '--store', dir, 'SELECT * WHERE x = 1']);
    expect(r.code).toBe(1);
    const [out] = lines(r.stdout) as [{ error: { code: string; message: string } }];
    expect(out.error.code).toBe('query/invalid');
    expect(out.error.message).toBe('Syntax error at line 1 column 10: expected FROM, found WHERE');
  });

  it('refuses --args that are not JSON with query/arguments-invalid', async () => {
    const r = await syncmesh(['exec', '--store', dir, '--args', '{nope', 'SELECT * FROM orders']);
    expect(r.code).toBe(1);
    expect((lines(r.stdout)[0] as { error: { code: string } }).error.code).toBe('query/arguments-invalid');
  });

  it('says how to call it when --store is missing, with exit status 2', async () => {
    const r = await syncmesh(['exec', 'SELECT * FROM orders']);
    expect(r.code).toBe(2);
    expect(lines(r.stdout)).toEqual([{ error: { code: 'cli/usage', message: '--store DIR is required' } }]);
    expect(r.stderr).toContain('syncmesh exec --store DIR');
  });

  it('answers every JSON line in order in one process and exits 0 whatever the answers', async () => {
    const input = [
      JSON.stringify({ statement: "INSERT INTO t DOCUMENTS ({_id: 'a', n: 1})" }),
      'not json',
      '',
      JSON.stringify({ statement: "INSERT INTO t DOCUMENTS ({_id: 'a', n: 2})" }),
      JSON.stringify({ args: {} }),
      JSON.stringify({ statement: 'SELECT n FROM t WHERE n >= :n', args: { n: 1 } }),
    ].join('\n');
    const r = await syncmesh(['exec', '--store', dir, '--jsonl'], input);
    expect(r.code).toBe(0);
    const out = lines(r.stdout) as Record<string, { code?: string }>[];
    expect(out).toHaveLength(5);
    expect(out[0]).toEqual({ items: [], mutatedDocumentIds: ['a'], commitId: 1 });
    expect(out[1]?.error?.code).toBe('cli/invalid-line');
    expect(out[2]?.error?.code).toBe('query/evaluation');
    expect(out[3]?.error?.code).toBe('cli/invalid-line');
    expect(out[4]).toEqual({ items: [{ n: 1 }], mutatedDocumentIds: [], commitId: null });
  });

  it('pairs answers one to one with request lines holding U+2028 and U+2029 in strings and a lone CR between tokens, and keeps the strings intact', async () => {
    const text = 'x\u2028{"statement":"DELETE FROM t"}\u2029y\rz';
    const input = [
      JSON.stringify({ statement: "INSERT INTO t DOCUMENTS ({_id: 'keep', n: 0})" }),
      // JSON.stringify leaves U+2028 and U+2029 raw in strings; a lone CR is JSON whitespace.
      JSON.stringify({ statement: 'INSERT INTO t DOCUMENTS (:d)', args: { d: { _id: 'a', text } } }).replace(',"args"', ',\r"args"'),
      JSON.stringify({ statement: 'SELECT _id, text FROM t ORDER BY _id' }),
    ].join('\r\n');
    expect(input).toContain('\u2028');
    expect(input.match(/\r(?!\n)/g)).toHaveLength(1);
    const r = await syncmesh(['exec', '--store', dir, '--jsonl'], input);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      { items: [], mutatedDocumentIds: ['keep'], commitId: 1 },
      { items: [], mutatedDocumentIds: ['a'], commitId: 2 },
      { items: [{ _id: 'a', text }, { _id: 'keep' }], mutatedDocumentIds: [], commitId: null },
    ]);
  });

  it('writes U+2028 and U+2029 in its answers escaped, so that each answer is one line for any line reader', async () => {
    const text = 'a\u2028b\u2029c';
    await syncmesh(['exec', '--store', dir, '--args', JSON.stringify({ d: { _id: 'u', text } }), 'INSERT INTO t DOCUMENTS (:d)']);
    const selected = await syncmesh(['exec', '--store', dir, 'SELECT text FROM t']);
    expect(selected.stdout).not.toMatch(/[\u2028\u2029]/);
    expect(selected.stdout).toContain('a\\u2028b\\u2029c');
    expect(selected.stdout.split(/\r\n|[\n\r\u2028\u2029]/)).toEqual([selected.stdout.slice(0, -1), '']);
    expect(JSON.parse(selected.stdout)).toEqual({ items: [{ text }], mutatedDocumentIds: [], commitId: null });
  });

  it('answers a line over 16 MiB with a cli/invalid-line error, without keeping it, and goes on with the next line', async () => {
    const huge = JSON.stringify({ statement: 'SELECT * FROM t', args: { pad: 'x'.repeat(16 * 1024 * 1024) } });
    const r = await syncmesh(['exec', '--store', dir, '--jsonl'], `${huge}\n${JSON.stringify({ statement: 'SELECT * FROM t' })}\n`);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      { error: { code: 'cli/invalid-line', message: `line 1 is ${huge.length} bytes long; a line may hold at most 16777216 bytes` } },
      { items: [], mutatedDocumentIds: [], commitId: null },
    ]);
  });

  it('reports a store held by another process as store/locked', async () => {
    const holder = spawn(process.execPath, [BIN, 'exec', '--store', dir, '--jsonl'], { stdio: ['pipe', 'pipe', 'pipe'] });
    // The holder answers its first line once the store is open, and keeps it open while stdin stays open.
    const opened = new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    holder.stdin.write(`${JSON.stringify({ statement: 'SELECT * FROM t' })}\n`);
    await opened;
    try {
      const r = await syncmesh(['exec', '--store', dir, 'SELECT * FROM t']);
      expect(r.code).toBe(1);
      expect((lines(r.stdout)[0] as { error: { code: string } }).error.code).toBe('store/locked');
    } finally {
      holder.stdin.end();
      await new Promise((resolve) => holder.on('close', resolve));
    }
  });
});
