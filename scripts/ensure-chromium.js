// Makes sure the browser the end-to-end tests drive is installed: Debian's Chromium at
// /usr/bin/chromium (Playwright's own browser download cannot work on machines without the
// internet, so `playwright install` is never run). As root on a Debian-like system it installs
// the `chromium` package with apt-get; otherwise it says what to run and exits 1.
// Plain JavaScript, node:* only.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const CHROMIUM_PATH = process.env.SYNCMESH_CHROMIUM ?? '/usr/bin/chromium';

function run(command, args) {
  console.error(`ensure-chromium: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return result.status === 0;
}

function main() {
  if (fs.existsSync(CHROMIUM_PATH)) return 0;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = fs.existsSync('/usr/bin/apt-get');
  const how = "install Debian's Chromium (as root: apt-get install -y chromium), or set SYNCMESH_CHROMIUM to a Chromium binary";
  if (!isRoot || !hasApt) {
    console.error(`The browser tests need Chromium at ${CHROMIUM_PATH}, and it is missing. To run them, ${how}.`);
    return 1;
  }
  console.error(`Chromium is missing at ${CHROMIUM_PATH}: installing Debian's chromium package for the browser tests.`);
  // The package lists may be stale or absent on a fresh machine: update once, then install.
  if (!run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'])) {
    if (!run('apt-get', ['update']) || !run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'])) {
      console.error(`Installing Chromium failed. To run the browser tests, ${how}.`);
      return 1;
    }
  }
  if (!fs.existsSync(CHROMIUM_PATH)) {
    console.error(`apt-get installed chromium, but ${CHROMIUM_PATH} is still missing. To run the browser tests, ${how}.`);
    return 1;
  }
  return 0;
}

process.exit(main());
