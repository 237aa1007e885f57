#!/usr/bin/env node
// The `syncmesh` command. Plain JavaScript so that it can say what to do on a Node.js too old
// to load the rest (which is TypeScript run by Node's type stripping, unflagged from 22.18, and
// better-sqlite3 13, which needs Node-API 10). The minimum is kept in scripts/check-node.js.
import { nodeVersionProblem } from '../scripts/check-node.js';

const problem = nodeVersionProblem(process.versions.node, process.execPath);
if (problem !== null) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
