/**
 * scripts/postgres-cluster.js: the throwaway PostgreSQL cluster of the tests, .ci/run and the
 * benchmarks. These need PostgreSQL's server binaries (they fail with the how-to without them).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain JavaScript without declarations
import * as cluster from './postgres-cluster.js';

type ThrowawayCluster = { url: string; dir: string; stop(): Promise<void> };
type Search = { root?: string; path?: string };
const { POSTGRES_HOW_TO, findPostgresBinaries, startThrowawayCluster } = cluster as {
  POSTGRES_HOW_TO: string;
  findPostgresBinaries(search?: Search): string | undefined;
  startThrowawayCluster(options?: { dir?: string; search?: Search; watchdog?: boolean }): Promise<ThrowawayCluster>;
};

const script = fileURLToPath(new URL('./postgres-cluster.js', import.meta.url));
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'syncmesh-pgtest-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function query(url: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

function postmasterRuns(dataDirectory: string): boolean {
  const found = spawnSync('pgrep', ['-f', `postgres -D ${dataDirectory}`], { encoding: 'utf8' });
  return found.stdout.trim() !== '';
}

async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

describe('a throwaway PostgreSQL cluster', () => {
  it('accepts connections on 127.0.0.1, is set up for speed, and is gone with its directory after stop()', async () => {
    const started = await startThrowawayCluster();
    cleanups.push(() => started.stop());
    expect(started.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    const rows = await query(
      started.url,
      "SELECT current_user AS who, current_setting('fsync') AS fsync, current_setting('max_connections') AS max, current_setting('server_encoding') AS encoding",
    );
    expect(rows).toEqual([{ who: 'postgres', fsync: 'off', max: '300', encoding: 'UTF8' }]);
    expect(postmasterRuns(path.join(started.dir, 'data'))).toBe(true);
    await started.stop();
    expect(existsSync(started.dir)).toBe(false);
    expect(postmasterRuns(path.join(started.dir, 'data'))).toBe(false);
    await expect(query(started.url, 'SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('is stopped and removed by its watchdog when the process that started it dies without stop()', async () => {
    const starter = `import { startThrowawayCluster } from ${JSON.stringify(script)};
      const started = await startThrowawayCluster();
      process.stdout.write(started.dir + '\\n');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', starter], { stdio: ['ignore', 'pipe', 'inherit'] });
    cleanups.push(() => void child.kill('SIGKILL'));
    const dir = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.on('exit', (code) => reject(new Error(`the starter exited (${code}) before printing its cluster's directory`)));
    });
    expect(postmasterRuns(path.join(dir, 'data'))).toBe(true);
    child.kill('SIGKILL');
    expect(await eventually(() => !existsSync(dir) && !postmasterRuns(path.join(dir, 'data')), 15_000)).toBe(true);
  });

  it('fails with the how-to when no PostgreSQL binaries are found', async () => {
    const empty = tempDir();
    expect(findPostgresBinaries({ root: empty, path: empty })).toBeUndefined();
    await expect(startThrowawayCluster({ search: { root: empty, path: empty } })).rejects.toThrow(POSTGRES_HOW_TO);
    expect(POSTGRES_HOW_TO).toMatch(/PostgreSQL was not found/);
    expect(POSTGRES_HOW_TO).toContain('apt-get install -y postgresql');
    expect(POSTGRES_HOW_TO).toContain('SYNCMESH_TEST_POSTGRES=postgres://user@host:port/db');
  });

  it('finds the highest installed version with all of initdb, pg_ctl and postgres, else the ones on the PATH', () => {
    const root = tempDir();
    const fake = (dir: string, names: string[]): string => {
      mkdirSync(dir, { recursive: true });
      for (const name of names) {
        writeFileSync(path.join(dir, name), '#!/bin/sh\n');
        chmodSync(path.join(dir, name), 0o755);
      }
      return dir;
    };
    fake(path.join(root, '9.6', 'bin'), ['initdb', 'pg_ctl', 'postgres']);
    const v15 = fake(path.join(root, '15', 'bin'), ['initdb', 'pg_ctl', 'postgres']);
    fake(path.join(root, '16', 'bin'), ['initdb', 'pg_ctl']);
    expect(findPostgresBinaries({ root, path: '' })).toBe(v15);
    const onPath = fake(path.join(root, 'elsewhere'), ['initdb', 'pg_ctl', 'postgres']);
    expect(findPostgresBinaries({ root: path.join(root, 'none'), path: `${path.join(root, 'empty')}:${onPath}` })).toBe(onPath);
  });
});

describe('the postgres-cluster command line', () => {
  it('start prints only the URL of a cluster that outlives it, and stop stops it and removes the directory', async () => {
    const dir = tempDir(); // like .ci/run: an empty directory from mktemp -d (0700, root's when root)
    cleanups.push(() => void spawnSync(process.execPath, [script, 'stop', dir], { timeout: 60_000 }));
    const start = spawnSync(process.execPath, [script, 'start', dir], { encoding: 'utf8', timeout: 60_000 });
    expect(start.stderr).toBe('');
    expect(start.status).toBe(0);
    expect(start.stdout).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres\n$/);
    const url = start.stdout.trim();
    expect(await query(url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    const stop = spawnSync(process.execPath, [script, 'stop', dir], { encoding: 'utf8', timeout: 60_000 });
    expect(stop.stderr).toBe('');
    expect(stop.status).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(postmasterRuns(path.join(dir, 'data'))).toBe(false);
  });

  it('exits 2 with the how-to when no PostgreSQL binaries are found', () => {
    const empty = tempDir();
    const start = spawnSync(process.execPath, [script, 'start', path.join(empty, 'cluster')], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, SYNCMESH_POSTGRES_BIN: empty },
    });
    expect(start.status).toBe(2);
    expect(start.stdout).toBe('');
    expect(start.stderr.trim()).toBe(POSTGRES_HOW_TO);
    expect(existsSync(path.join(empty, 'cluster'))).toBe(false);
  });

  it('stop ends the server even when the binaries to stop it cleanly are gone', () => {
    const dir = tempDir();
    const start = spawnSync(process.execPath, [script, 'start', dir], { encoding: 'utf8', timeout: 60_000 });
    cleanups.push(() => void spawnSync(process.execPath, [script, 'stop', dir], { timeout: 60_000 }));
    expect(start.status).toBe(0);
    expect(postmasterRuns(path.join(dir, 'data'))).toBe(true);
    const stop = spawnSync(process.execPath, [script, 'stop', dir], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, SYNCMESH_POSTGRES_BIN: tempDir() },
    });
    expect(stop.stderr).toBe('');
    expect(stop.status).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(postmasterRuns(path.join(dir, 'data'))).toBe(false);
  });

  it('stop removes nothing that a cluster did not make', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'precious.txt'), 'keep me');
    const stop = spawnSync(process.execPath, [script, 'stop', dir], { encoding: 'utf8', timeout: 30_000 });
    expect(stop.status).toBe(1);
    expect(stop.stderr).toMatch(/Not removing .*precious\.txt/);
    expect(existsSync(path.join(dir, 'precious.txt'))).toBe(true);
  });
});
