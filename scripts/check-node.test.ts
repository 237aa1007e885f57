/**
 * The Node.js minimum (22.18: type stripping unflagged, Node-API 10) is the same in every check:
 * scripts/check-node.js, bin/syncmesh.js, the installed package's command (src/cli/node-version.ts),
 * the store's own check and package.json "engines".
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PACKAGE_MINIMUM_NODE } from '../src/cli/node-version.ts';
import { MINIMUM_NODE } from '../src/peer/storage/node-version.ts';
// @ts-expect-error -- plain JavaScript without declarations
import { REQUIRED_MAJOR, REQUIRED_MINOR, nodeVersionProblem } from './check-node.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Runs `<project>/bin/syncmesh.js --help` on this Node, made to report `version`. */
function syncmeshAs(version: string, project = root, env: Record<string, string> = {}): { status: number | null; stderr: string; stdout: string } {
  const fake = `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: ${JSON.stringify(version)} } });`;
  const run = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(fake)}`, join(project, 'bin/syncmesh.js'), '--help'], {
    cwd: project,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, ...env },
  });
  return { status: run.status, stderr: run.stderr, stdout: run.stdout };
}

describe('the Node.js version checks', () => {
  it('refuses 22.14 to 22.17, which cannot run .ts files without a flag, and accepts 22.18 and newer', () => {
    for (const version of ['20.20.2', '22.12.0', '22.14.0', '22.17.1']) expect(nodeVersionProblem(version)).toMatch(/Node\.js >= 22\.18/);
    for (const version of ['22.18.0', '22.20.1', '24.0.0']) expect(nodeVersionProblem(version)).toBeNull();
  });

  it('agree with one another and with package.json engines', () => {
    expect({ major: REQUIRED_MAJOR, minor: REQUIRED_MINOR }).toEqual(MINIMUM_NODE);
    expect(PACKAGE_MINIMUM_NODE).toEqual(MINIMUM_NODE);
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { engines: { node: string } };
    const lock = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')) as { packages: Record<string, { engines?: { node: string } }> };
    expect(pkg.engines.node).toBe('>=22.18');
    expect(lock.packages['']?.engines?.node).toBe('>=22.18');
  });

  it('makes syncmesh run itself again on the bundled Node.js 24 when started on an older one', () => {
    const old = syncmeshAs('22.14.0');
    expect(old.stderr).toBe('');
    expect(old.stdout).toMatch(/^Usage: syncmesh <command>/);
    expect(old.status).toBe(0);
  });

  it('makes syncmesh explain itself in one line when no Node.js can run it, rather than fail on a .ts import', () => {
    const bare = mkdtempSync(join(tmpdir(), 'syncmesh-no-node-'));
    try {
      // A checkout without node_modules: no bundled Node.js to run on.
      for (const file of ['bin/syncmesh.js', 'scripts/check-node.js']) {
        mkdirSync(join(bare, file, '..'), { recursive: true });
        copyFileSync(join(root, file), join(bare, file));
      }
      copyFileSync(join(root, 'package.json'), join(bare, 'package.json'));
      const old = syncmeshAs('22.14.0', bare);
      expect(old.status).toBe(1);
      expect(old.stderr).toMatch(/^SyncMesh needs Node\.js >= 22\.18, but this is Node\.js 22\.14\.0 [^\n]*\n$/);
      // Nor does a second launch loop: it explains as well.
      const again = syncmeshAs('22.14.0', root, { SYNCMESH_LAUNCHED_ON: '22.14.0' });
      expect(again.status).toBe(1);
      expect(again.stderr).toMatch(/needs Node\.js >= 22\.18/);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
    const ok = syncmeshAs('22.18.0');
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
  });

  it('lets npx syncmesh run the checkout’s sources, also when npm itself runs on an older Node.js, with npm’s engine warning about syncmesh as the only noise', () => {
    // The user's shell: no node_modules/.bin on the PATH (npm test puts it first), so npx runs on
    // the system's Node.js, whatever its version; a fresh npm cache, as on a fresh clone. Since
    // package.json has a "bin" (the installed package's command, docs/package.md), npx links this
    // checkout into its cache on the first call and npm checks our "engines" there: on a Node.js
    // older than 22.18 it warns about syncmesh itself, on that first call only. Nothing else.
    const cache = mkdtempSync(join(tmpdir(), 'syncmesh-npm-cache-'));
    try {
      const path = (process.env.PATH ?? '')
        .split(delimiter)
        .filter((dir) => !dir.includes('node_modules'))
        .join(delimiter);
      const env: Record<string, string | undefined> = { ...process.env, PATH: path, npm_config_cache: cache };
      for (const key of Object.keys(env)) if (/^npm_(lifecycle|package|config_(node_version|user_agent))/i.test(key)) delete env[key];
      const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
      for (const call of ['first', 'second']) {
        const run = spawnSync('npx', ['syncmesh', '--version'], { cwd: root, encoding: 'utf8', timeout: 60_000, env });
        expect(run.error).toBeUndefined();
        const warnings = run.stderr.split('\n').filter((line) => line.startsWith('npm warn'));
        const engineBlocks = run.stderr.split('npm warn EBADENGINE Unsupported engine {').slice(1);
        expect(warnings.filter((line) => !line.startsWith('npm warn EBADENGINE'))).toEqual([]);
        for (const block of engineBlocks) expect(block).toMatch(/^\nnpm warn EBADENGINE {3}package: 'syncmesh@/);
        if (call === 'second') expect(warnings).toEqual([]);
        expect(run.stdout.trim()).toBe(version);
        expect(run.status).toBe(0);
      }
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
