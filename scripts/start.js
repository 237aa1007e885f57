// `npm start`: launches the desktop app with the project's Electron, building it first if the
// build is missing or older than the sources. Plain JavaScript, node:* only (and, to fetch
// Electron, the @electron/get that the electron package depends on).
//
// When Electron's binary is missing it is fetched first, the way Electron's own install.js does
// (scripts/electron-fetch.js: the same mirror, cache and checksum settings), with progress and a
// bound. Where it cannot be had (the fetch failed, ELECTRON_SKIP_BINARY_DOWNLOAD, an
// ELECTRON_OVERRIDE_DIST_PATH without a binary) it says why in one line and runs the same
// inspector in browser mode instead (`syncmesh inspect --user-data <the app's user-data folder>`,
// in this process): the same peer, the same settings.json rule (none: the local Big Peer), a URL
// to open.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitUnlessSupportedNode } from './check-node.js';
import { electronPackage, installedElectron, runningAsRoot } from './electron-binary.js';
import { ElectronFetchError, fetchElectron, skipReason, stallSeconds } from './electron-fetch.js';

const projectDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Build inputs: when any is newer than the oldest build output, the build is stale. */
const BUILD_INPUTS = ['src', 'electron.vite.config.ts', 'package.json'];
/** One output per part of the build: main process, preload script, renderer. */
const BUILD_OUTPUTS = ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html'];

/**
 * The Electron binary, fetched first when it is missing and may be fetched; or why there is none
 * (a fetch that failed has printed its one line already).
 * @returns {Promise<{ binary: string } | { reason: string }>}
 */
export async function obtainElectron(env = process.env, out = process.stdout, err = process.stderr) {
  const pkg = electronPackage(projectDir);
  if (pkg === null) return { reason: 'the electron package is not installed: run npm install' };
  const installed = installedElectron(pkg, env);
  if ('binary' in installed) return installed;
  if (!installed.fetchable) return { reason: installed.reason };
  const skip = skipReason(env);
  if (skip !== null) return { reason: `${installed.reason}, and ${skip}` };
  out.write(`${installed.reason}: fetching it now, as Electron's installer does (no byte for ${stallSeconds(env)} s ends the attempt).\n`);
  try {
    return { binary: await fetchElectron(pkg, { env, out }) };
  } catch (error) {
    if (!(error instanceof ElectronFetchError)) throw error;
    err.write(`${error.message}\n`);
    return { reason: 'it could not be fetched, as said above' };
  }
}

/** Newest modification time under `entry` (a file or a folder), 0 if it does not exist. */
function newestMtime(entry) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of fs.readdirSync(entry, { recursive: true })) {
    const mtime = fs.statSync(path.join(entry, String(name))).mtimeMs;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

function buildIsStale() {
  const outputTimes = BUILD_OUTPUTS.map((file) => newestMtime(path.join(projectDir, file)));
  if (outputTimes.includes(0)) return true;
  const inputTime = Math.max(...BUILD_INPUTS.map((entry) => newestMtime(path.join(projectDir, entry))));
  return inputTime > Math.min(...outputTimes);
}

function build() {
  const cli = path.join(projectDir, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');
  const result = spawnSync(process.execPath, [cli, 'build'], { cwd: projectDir, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('electron-vite build failed; not starting the app.');
    process.exit(result.status ?? 1);
  }
}

/**
 * The folder Electron's `app.getPath('userData')` names for this app: the platform's app-data
 * folder and the app's name (package.json "productName"), where the app keeps settings.json and
 * its peer. The browser mode uses the same folder, so both run the same peer.
 */
export function electronUserDataDir(env = process.env, platform = process.platform, home = os.homedir()) {
  const pkg = JSON.parse(fs.readFileSync(path.join(projectDir, 'package.json'), 'utf8'));
  const name = pkg.productName || pkg.name;
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', name);
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), name);
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), name);
}

/**
 * The inspector in browser mode, in this process, until Ctrl-C (SIGINT) or SIGTERM. The renderer
 * is built first when stale, unless SYNCMESH_RENDERER_DIR names a build to serve.
 */
async function runBrowserMode() {
  if (!process.env.SYNCMESH_RENDERER_DIR && buildIsStale()) build();
  const { main: syncmesh } = await import('../src/cli/main.ts');
  const io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
  process.exitCode = await syncmesh(['inspect', '--user-data', electronUserDataDir()], io);
}

/**
 * Electron's arguments: the project (Electron reads package.json "main", out/main/index.js, and
 * names the app and its user-data folder after "productName"), what came after `npm start --`,
 * and --no-sandbox when running as root, where Chromium refuses to start with its sandbox.
 */
export function electronArguments(extra, asRoot = runningAsRoot()) {
  const args = [projectDir, ...extra];
  if (asRoot && !args.includes('--no-sandbox')) args.push('--no-sandbox');
  return args;
}

async function main() {
  exitUnlessSupportedNode();
  // Looked up (and fetched) before building: without a binary only the renderer is needed.
  const electron = await obtainElectron();
  if ('reason' in electron) {
    console.log(`Electron's binary is not available on this machine (${electron.reason}), so the inspector opens in browser mode instead: open the URL below.`);
    await runBrowserMode();
    return;
  }
  if (buildIsStale()) build();
  const args = electronArguments(process.argv.slice(2));
  if (runningAsRoot() && !process.argv.includes('--no-sandbox')) {
    console.log("Running as root: Electron is started with --no-sandbox (Chromium's sandbox cannot run as root; run as a normal user to keep it).");
  }
  const child = spawn(electron.binary, args, { stdio: 'inherit' });
  // Electron runs in the terminal's foreground process group, so Ctrl-C (SIGINT) and a closed
  // terminal (SIGHUP) already reach it from the terminal. Forwarding them would send a second
  // one, and Electron's handler is one-shot: the second kills it in the middle of its quit,
  // before the inspector, the peer's store and the local Big Peer are closed. So this process
  // only waits for Electron on those, and forwards SIGTERM (which is sent to it alone).
  for (const signal of ['SIGINT', 'SIGHUP']) process.on(signal, () => {});
  process.on('SIGTERM', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  child.on('error', (error) => {
    console.error(`Could not start Electron (${electron.binary}): ${error.message}`);
    process.exit(1);
  });
  child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const invokedPath = process.argv[1] ? path.resolve(process.argv[1]) : '';
if (invokedPath === fileURLToPath(import.meta.url)) await main();
