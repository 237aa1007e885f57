/**
 * The `syncmesh` command of the installed npm package: bin/syncmesh.js (package.json "bin") runs
 * this compiled file, lib/cli/bin.js, when it finds itself inside node_modules (docs/package.md);
 * a checkout runs the sources instead. It loads nothing else before the Node.js check, so that
 * an older Node.js gets one line naming the fix and exit status 1, not a stack trace from
 * better-sqlite3's binary.
 */
import { installedNodeProblem } from './node-version.ts';

const problem = installedNodeProblem(process.versions.node, process.execPath);
if (problem !== null) {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 1;
} else {
  const { main } = await import('./main.ts');
  process.exitCode = await main(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
}
