// `npm start`: launches the desktop app with the project's Electron, building it first if the
// build is missing or older than the sources. Plain JavaScript, node:* only.
//
// Where Electron's binary cannot be had, it says so in one line and runs the same inspector in
// browser mode instead (`syncmesh inspect --user-data <the app's user-data folder>`, in this
// process): the same peer, the same settings.json rule (none: the local Big Peer), a URL to open.
//
// The Electron binary is looked up the way node_modules/electron/index.js does it, but without
// ever downloading: `require('electron')` runs the package's install.js (a download from GitHub)
// whenever the binary is missing, which on a machine without that host hangs or fails slowly.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitUnlessSupportedNode } from './check-node.js';

const projectDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Build inputs: when any is newer than the oldest build output, the build is stale. */
const BUILD_INPUTS = ['src', 'electron.vite.config.ts', 'package.json'];
/** One output per part of the build: main process, preload script, renderer. */
const BUILD_OUTPUTS = ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html'];

/**
 * Where the Electron binary is, or why it is not there.
 * @returns {{ binary: string } | { reason: string }}
 */
function locateElectron() {
  const require = createRequire(path.join(projectDir, 'package.json'));
  let packageDir;
  try {
    packageDir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return { reason: 'the electron package is not installed' };
  }
  // path.txt names the executable inside dist/; install.js writes it after a successful download.
  const pathFile = path.join(packageDir, 'path.txt');
  const executable = fs.existsSync(pathFile) ? fs.readFileSync(pathFile, 'utf8') : undefined;
  const overrideDir = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  let binary;
  if (overrideDir) {
    binary = path.join(overrideDir, executable || 'electron');
  } else if (executable === undefined) {
    return { reason: `${path.relative(projectDir, pathFile)} is missing: electron's install step, which downloads the binary, did not complete` };
  } else {
    binary = path.join(packageDir, 'dist', executable);
  }
  if (!fs.existsSync(binary)) return { reason: `${binary} does not exist` };
  return { binary };
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

async function main() {
  exitUnlessSupportedNode();
  // Looked up before building: without a binary only the renderer is needed.
  const electron = locateElectron();
  if ('reason' in electron) {
    console.log(`Electron's binary is not available on this machine (${electron.reason}), so the inspector opens in browser mode instead: open the URL below.`);
    await runBrowserMode();
    return;
  }
  if (buildIsStale()) build();
  // Arguments after `npm start --` go to Electron (for example --no-sandbox when running as root).
  const child = spawn(electron.binary, [projectDir, ...process.argv.slice(2)], { stdio: 'inherit' });
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
