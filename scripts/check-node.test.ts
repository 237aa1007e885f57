/**
 * The Node.js minimum (22.18: type stripping unflagged, Node-API 10) is the same in every check:
 * scripts/check-node.js, bin/syncmesh.js, the store's own check and package.json "engines".
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MINIMUM_NODE } from '../src/peer/storage/node-version.ts';
// @ts-expect-error -- plain JavaScript without declarations
import { REQUIRED_MAJOR, REQUIRED_MINOR, nodeVersionProblem } from './check-node.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Runs bin/syncmesh.js --help on this Node, made to report `version`. */
function syncmeshAs(version: string): { status: number | null; stderr: string; stdout: string } {
  const fake = `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: ${JSON.stringify(version)} } });`;
  const run = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(fake)}`, 'bin/syncmesh.js', '--help'], { cwd: root, encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, stderr: run.stderr, stdout: run.stdout };
}

describe('the Node.js version checks', () => {
  it('refuses 22.14 to 22.17, which cannot run .ts files without a flag, and accepts 22.18 and newer', () => {
    for (const version of ['20.20.2', '22.12.0', '22.14.0', '22.17.1']) expect(nodeVersionProblem(version)).toMatch(/Node\.js >= 22\.18/);
    for (const version of ['22.18.0', '22.20.1', '24.0.0']) expect(nodeVersionProblem(version)).toBeNull();
  });

  it('agree with one another and with package.json engines', () => {
    expect({ major: REQUIRED_MAJOR, minor: REQUIRED_MINOR }).toEqual(MINIMUM_NODE);
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { engines: { node: string } };
    const lock = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')) as { packages: Record<string, { engines?: { node: string } }> };
    expect(pkg.engines.node).toBe('>=22.18');
    expect(lock.packages['']?.engines?.node).toBe('>=22.18');
  });

  it('makes syncmesh explain itself on Node.js 22.14 rather than fail on a .ts import', () => {
    const old = syncmeshAs('22.14.0');
    expect(old.status).toBe(1);
    expect(old.stderr).toMatch(/needs Node\.js >= 22\.18, but this is Node\.js 22\.14\.0/);
    const ok = syncmeshAs('22.18.0');
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
  });
});
