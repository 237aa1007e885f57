// `npm run dist [-- ELECTRON-BUILDER ARGUMENTS]`: the desktop app's installers for this platform
// (Linux: AppImage and deb; macOS: dmg; Windows: NSIS, as electron-builder.yml says), in dist/.
//
// 1. electron-vite build, so that the installers hold the current sources;
// 2. the project's Electron, fetched as `npm start` fetches it when missing (the same mirror,
//    cache, checksum and bound; scripts/electron-fetch.js), or ELECTRON_OVERRIDE_DIST_PATH's,
//    handed to electron-builder as electronDist so that it downloads no second copy;
// 3. electron-builder, its full output in dist/electron-builder.log and its steps on the terminal.
//    It fetches tools of its own (the AppImage runtime, fpm for deb) from its binaries mirror
//    (ELECTRON_BUILDER_BINARIES_MIRROR): a download with no output for
//    SYNCMESH_ELECTRON_FETCH_TIMEOUT seconds (20 by default) ends the run.
// Whatever fails, fails in one line that says why and what to do, and exit status 1.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitUnlessSupportedNode } from './check-node.js';
import { electronPackage, installedElectron } from './electron-binary.js';
import { ElectronFetchError, fetchElectron, stallSeconds } from './electron-fetch.js';

const projectDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The steps relayed to the terminal; the rest (and the debug lines) go to the log only. */
const SHOWN_STEP = /^\s*• (electron-builder |packaging |building |downloading |downloaded |using custom unpacked)/;
/** Without any output for this long outside a download, electron-builder is taken as hung. */
const SILENCE_MS = 10 * 60 * 1000;

/** The folder electron-builder takes as electronDist, or the one line saying why there is none. */
async function electronDist() {
  const pkg = electronPackage(projectDir);
  if (pkg === null) return { line: 'npm run dist failed: the electron package is not installed; run npm install' };
  const installed = installedElectron(pkg);
  if ('binary' in installed) return { dir: process.env.ELECTRON_OVERRIDE_DIST_PATH || path.join(pkg.dir, 'dist') };
  if (!installed.fetchable) return { line: `npm run dist failed: ${installed.reason}` };
  console.log(`${installed.reason}: fetching it first (no byte for ${stallSeconds()} s ends the attempt).`);
  try {
    await fetchElectron(pkg);
    return { dir: path.join(pkg.dir, 'dist') };
  } catch (error) {
    if (!(error instanceof ElectronFetchError)) throw error;
    return { line: `npm run dist failed: ${error.message}` };
  }
}

/**
 * What electron-builder's output says went wrong: its "⨯ message  failedTask=… stackTrace=…" line,
 * without the stack. Exported for tests.
 * @param {string} output
 */
export function builderFailure(output) {
  const line = output.split('\n').find((l) => /^\s*⨯ /.test(l));
  if (line === undefined) return null;
  return line
    .replace(/^\s*⨯ /, '')
    .replace(/\s+(failedTask|stackTrace)=.*$/, '')
    .trim();
}

/** The hint for a failure, by what it names. */
function hintFor(message) {
  if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|no output|socket|timed out/i.test(message)) {
    return 'electron-builder downloads its tools (AppImage runtime, fpm) from GitHub: build on a machine that can reach it, or set ELECTRON_BUILDER_BINARIES_MIRROR to a mirror of electron-builder-binaries';
  }
  return 'see the log for the details';
}

/**
 * Runs electron-builder, relaying its step lines ("• …") and keeping all of its output in `log`.
 * Resolves to null on success, or the one line.
 */
function runBuilder(args, log) {
  const stallMs = stallSeconds() * 1000;
  const cli = path.join(projectDir, 'node_modules', 'electron-builder', 'cli.js');
  // DEBUG=electron-builder makes it say "• downloading file=…" before each download, which the
  // watchdog needs (without it a stalled download prints nothing at all), and fills the log.
  const env = { ...process.env, DEBUG: [process.env.DEBUG, 'electron-builder'].filter(Boolean).join(',') };
  const child = spawn(process.execPath, [cli, ...args], { cwd: projectDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logStream = fs.createWriteStream(log);
  let output = '';
  let pending = '';
  let lastStep = '';
  let stalled = null;
  let timer;
  const watch = () => {
    clearTimeout(timer);
    const downloading = /downloading|download/i.test(lastStep);
    timer = setTimeout(
      () => {
        stalled = downloading
          ? `no output for ${stallMs / 1000} s while ${lastStep.trim().replace(/\s+/g, ' ')}`
          : `no output for ${SILENCE_MS / 60000} minutes after ${lastStep.trim() || 'starting'}`;
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      },
      downloading ? stallMs : SILENCE_MS,
    );
  };
  const take = (chunk) => {
    const text = chunk.toString();
    logStream.write(text);
    output += text;
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (/^\s*• /.test(line)) {
        lastStep = line;
        if (SHOWN_STEP.test(line)) console.log(line.replace(/^\s*/, '  '));
      }
    }
    watch();
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  watch();
  return new Promise((resolve) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      logStream.end();
      resolve(`npm run dist failed: electron-builder could not be started (${error.message}); run npm install`);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      logStream.end();
      if (code === 0 && stalled === null) return resolve(null);
      const why = stalled ?? builderFailure(output) ?? `electron-builder exited with ${code}`;
      resolve(`npm run dist failed: ${why}; ${hintFor(why)} (full output: ${path.relative(process.cwd(), log) || log})`);
    });
  });
}

async function main() {
  exitUnlessSupportedNode();
  const built = spawnSync(process.execPath, [path.join(projectDir, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], {
    cwd: projectDir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (built.status !== 0) {
    console.error('npm run dist failed: electron-vite build failed (its errors are above)');
    return 1;
  }
  const dist = await electronDist();
  if ('line' in dist) {
    console.error(dist.line);
    return 1;
  }
  fs.mkdirSync(path.join(projectDir, 'dist'), { recursive: true });
  const log = path.join(projectDir, 'dist', 'electron-builder.log');
  const args = ['--config', 'electron-builder.yml', `-c.electronDist=${dist.dir}`, ...process.argv.slice(2)];
  console.log(`Packaging with electron-builder (electronDist ${dist.dir}; full output in ${path.relative(process.cwd(), log)})`);
  const failure = await runBuilder(args, log);
  if (failure !== null) {
    console.error(failure);
    return 1;
  }
  console.log('Installers are in dist/.');
  return 0;
}

const invokedPath = process.argv[1] ? path.resolve(process.argv[1]) : '';
if (invokedPath === fileURLToPath(import.meta.url)) process.exitCode = await main();
