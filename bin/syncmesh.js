#!/usr/bin/env node
// The `syncmesh` command. Plain JavaScript so that it can say what to do on a Node.js too old
// to load the rest (which is TypeScript run by Node's type stripping, and better-sqlite3 13).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `syncmesh needs Node.js 22.12 or newer; this is Node.js ${process.versions.node}.\n` +
      'Run it through npx or npm scripts in the project (npm install puts Node 24 first on their PATH), or install Node 24.\n',
  );
  process.exit(1);
}
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
