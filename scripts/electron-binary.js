// The project's Electron binary: where it is, whether it is there, and putting it there from a
// downloaded release zip. The files and the rules are node_modules/electron/install.js's own
// (dist/, dist/version, path.txt, electron.d.ts), so that `require('electron')`, electron-vite and
// electron-builder find what we install, and we find what they install. Plain JavaScript.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/**
 * The electron package of the project at `projectDir`, or null when it is not installed.
 * @param {string} projectDir
 * @returns {{ dir: string, version: string } | null}
 */
export function electronPackage(projectDir) {
  const require = createRequire(path.join(projectDir, 'package.json'));
  try {
    const manifest = require.resolve('electron/package.json');
    return { dir: path.dirname(manifest), version: JSON.parse(fs.readFileSync(manifest, 'utf8')).version };
  } catch {
    return null;
  }
}

/** The platform Electron is fetched for: install.js's rule (an override, npm's, this one). */
export function targetPlatform(env = process.env) {
  return env.ELECTRON_INSTALL_PLATFORM || env.npm_config_platform || process.platform;
}

/** The architecture Electron is fetched for: install.js's rule, Rosetta included. */
export function targetArch(env = process.env) {
  const platform = targetPlatform(env);
  const arch = env.ELECTRON_INSTALL_ARCH || env.npm_config_arch || process.arch;
  if (platform === 'darwin' && process.platform === 'darwin' && arch === 'x64' && env.npm_config_arch === undefined) {
    try {
      if (execSync('sysctl -in sysctl.proc_translated').toString().trim() === '1') return 'arm64';
    } catch {
      // Not under Rosetta, or no sysctl: x64 it is.
    }
  }
  return arch;
}

/** The executable inside dist/ for a platform (what install.js writes to path.txt). */
export function executablePath(platform = targetPlatform()) {
  switch (platform) {
    case 'mas':
    case 'darwin':
      return 'Electron.app/Contents/MacOS/Electron';
    case 'freebsd':
    case 'openbsd':
    case 'linux':
      return 'electron';
    case 'win32':
      return 'electron.exe';
    default:
      throw new Error(`Electron builds are not available on platform: ${platform}`);
  }
}

/**
 * The binary to launch, or why there is none. With ELECTRON_OVERRIDE_DIST_PATH the user brings an
 * Electron of their own (as electron's index.js honours it): it is used as it is, never fetched.
 * Otherwise the binary counts as installed exactly when install.js would skip its download: the
 * right version in dist/version, the right path.txt, and the executable there.
 * @param {{ dir: string, version: string }} pkg
 * @returns {{ binary: string } | { reason: string, fetchable: boolean }}
 */
export function installedElectron(pkg, env = process.env) {
  const pathFile = path.join(pkg.dir, 'path.txt');
  const recorded = fs.existsSync(pathFile) ? fs.readFileSync(pathFile, 'utf8') : undefined;
  if (env.ELECTRON_OVERRIDE_DIST_PATH) {
    const binary = path.join(env.ELECTRON_OVERRIDE_DIST_PATH, recorded || 'electron');
    if (fs.existsSync(binary)) return { binary };
    return { reason: `ELECTRON_OVERRIDE_DIST_PATH names ${binary}, which does not exist`, fetchable: false };
  }
  const expected = executablePath();
  const binary = path.join(pkg.dir, 'dist', expected);
  let version;
  try {
    version = fs
      .readFileSync(path.join(pkg.dir, 'dist', 'version'), 'utf8')
      .trim()
      .replace(/^v/, '');
  } catch {
    return { reason: `Electron ${pkg.version}'s binary has not been downloaded yet`, fetchable: true };
  }
  if (version !== pkg.version) return { reason: `the downloaded Electron is ${version}, the project's is ${pkg.version}`, fetchable: true };
  if (recorded !== expected || !fs.existsSync(binary)) return { reason: `${binary} is missing`, fetchable: true };
  return { binary };
}

/**
 * Unpacks a release zip into the package's dist/ and writes path.txt, as install.js's extractFile
 * does (its extractor keeps the executable bits). Returns the binary.
 * @param {{ dir: string }} pkg
 * @param {string} zipPath
 */
export async function extractElectron(pkg, zipPath) {
  const require = createRequire(path.join(pkg.dir, 'package.json'));
  const { extract } = await import(require.resolve('@electron-internal/extract-zip'));
  const distDir = path.join(pkg.dir, 'dist');
  // A half-extracted dist/ from an interrupted attempt must not mix with this one.
  fs.rmSync(distDir, { recursive: true, force: true });
  fs.rmSync(path.join(pkg.dir, 'path.txt'), { force: true });
  await extract(zipPath, { dir: distDir });
  const typeDefinitions = path.join(distDir, 'electron.d.ts');
  if (fs.existsSync(typeDefinitions)) fs.renameSync(typeDefinitions, path.join(pkg.dir, 'electron.d.ts'));
  const executable = executablePath();
  // path.txt last: it is what says "installed".
  fs.writeFileSync(path.join(pkg.dir, 'path.txt'), executable);
  return path.join(distDir, executable);
}

/** Whether this process runs as root, where Chromium's sandbox cannot start. */
export function runningAsRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * The folder @electron/get caches downloads in: electron_config_cache (install.js passes it as
 * cacheRoot) or env-paths' cache folder for "electron", as @electron/get's Cache computes it.
 */
export function electronCacheDir(env = process.env, platform = process.platform, home = os.homedir()) {
  if (env.electron_config_cache) return env.electron_config_cache;
  if (platform === 'darwin') return path.join(home, 'Library', 'Caches', 'electron');
  if (platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'electron', 'Cache');
  return path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'electron');
}
