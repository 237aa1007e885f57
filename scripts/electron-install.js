// `npm run electron:install`: fetches Electron's binary for the project's electron package when it
// is missing (or of another version), as `npm start` does before launching, and nothing else.
// Exit 0 when the binary is there (fetched now or before), 1 with one line saying why when it
// cannot be had. Plain JavaScript.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitUnlessSupportedNode } from './check-node.js';
import { electronPackage, installedElectron } from './electron-binary.js';
import { ElectronFetchError, fetchElectron, skipReason, stallSeconds } from './electron-fetch.js';

const projectDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function main() {
  exitUnlessSupportedNode();
  const pkg = electronPackage(projectDir);
  if (pkg === null) {
    console.error('The electron package is not installed: run npm install first.');
    return 1;
  }
  const installed = installedElectron(pkg);
  if ('binary' in installed) {
    console.log(`Electron ${pkg.version} is installed: ${installed.binary}`);
    return 0;
  }
  if (!installed.fetchable) {
    console.error(`Electron's binary is not available (${installed.reason}); unset ELECTRON_OVERRIDE_DIST_PATH to fetch the project's own.`);
    return 1;
  }
  // Asked for by name: ELECTRON_SKIP_BINARY_DOWNLOAD, meant for installs, does not stop it here.
  if (skipReason() !== null) console.log('ELECTRON_SKIP_BINARY_DOWNLOAD is set; fetching anyway, since you asked for it.');
  console.log(`${installed.reason}: fetching it (no byte for ${stallSeconds()} s ends the attempt).`);
  try {
    await fetchElectron(pkg);
    return 0;
  } catch (error) {
    if (!(error instanceof ElectronFetchError)) throw error;
    console.error(error.message);
    return 1;
  }
}

process.exitCode = await main();
