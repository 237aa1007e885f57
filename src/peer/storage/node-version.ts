import { StoreError } from '../errors.ts';

/**
 * Node.js 22.18: the first 22.x that runs `.ts` files without a flag (type stripping), which the
 * CLI and `npm start` need, and it has Node-API 10 (from 22.14), which better-sqlite3 13's
 * binaries need. The same minimum is in scripts/check-node.js, bin/syncmesh.js (through it) and
 * package.json "engines".
 */
export const MINIMUM_NODE = { major: 22, minor: 18 } as const;

/**
 * better-sqlite3 13 ships Node-API binaries that crash older Node.js at load, so the version is
 * checked before the module is loaded, with a message that says what to do.
 */
export function assertSupportedNode(version: string = process.versions.node): void {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major > MINIMUM_NODE.major || (major === MINIMUM_NODE.major && minor >= MINIMUM_NODE.minor)) return;
  throw new StoreError(
    'store/node-unsupported',
    `SyncMesh's store needs Node.js ${MINIMUM_NODE.major}.${MINIMUM_NODE.minor} or newer, and this is Node.js ${version}. ` +
      'Run it through npm scripts or npx (npm install puts Node 24 first on their PATH), or install Node 24.',
    { details: { version, minimum: `${MINIMUM_NODE.major}.${MINIMUM_NODE.minor}` } },
  );
}
