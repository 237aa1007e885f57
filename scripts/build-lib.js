// Compiles the library part of src/ (peer, big-peer, shared, cli) to ES modules in lib/, with
// declarations, declaration maps and source maps (tsconfig.build.json): what the npm package runs
// (package.json "exports" and "bin"; docs/package.md). `npm pack` runs it through "prepack";
// `npm run build:lib` alone. It starts from an empty lib/, so nothing stale is packed, and fails
// if the output holds a test or a module of the test harness (which tsc would compile had a
// production file imported one). Plain JavaScript, node:* only.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const projectDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const libDir = path.join(projectDir, 'lib');

/** Output files that come from a test or from src/testing (paths relative to lib/). */
export function harnessFiles(relativePaths) {
  return relativePaths.filter((file) => /^testing\//.test(file) || /\.test(?:-helpers)?\.(?:js|d\.ts|js\.map|d\.ts\.map)$/.test(file));
}

function main() {
  fs.rmSync(libDir, { recursive: true, force: true });
  const tsc = path.join(projectDir, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: projectDir, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('build-lib: tsc -p tsconfig.build.json failed');
    return result.status ?? 1;
  }
  const files = fs.readdirSync(libDir, { recursive: true }).map((file) => String(file).replaceAll('\\', '/'));
  const harness = harnessFiles(files);
  if (harness.length > 0) {
    console.error(`build-lib: lib/ would hold the test harness: ${harness.join(', ')} (production code may not import src/testing/ or tests)`);
    return 1;
  }
  return 0;
}

const invokedPath = process.argv[1] ? path.resolve(process.argv[1]) : '';
if (invokedPath === fileURLToPath(import.meta.url)) process.exitCode = main();
