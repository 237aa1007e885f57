/**
 * `npm start` with Electron, played by a stand-in: scripts/start.js (copied into a scratch
 * project with a stand-in build, so that nothing is built) spawns it in its own process group,
 * as a terminal does. The stand-in logs each signal it gets; on its first SIGINT it quits
 * gracefully (200 ms), and, like Electron, a second SIGINT kills it at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NODE } from '../src/testing/cli/child-process-fixture.ts';
import { scratchProject } from './electron-mirror-fixture.ts';

const STAND_IN = `#!${NODE}
const { appendFileSync } = require('node:fs');
const log = (line) => appendFileSync(process.env.STAND_IN_LOG, line + '\\n');
let quitting = false;
process.on('SIGTERM', () => { log('SIGTERM'); log('quit cleanly'); process.exit(0); });
process.on('SIGINT', () => {
  log('SIGINT');
  if (quitting) return;
  quitting = true;
  // Electron's GracefulShutdownHandler reinstalls the default: a second SIGINT kills it.
  process.removeAllListeners('SIGINT');
  setTimeout(() => { log('quit cleanly'); process.exit(0); }, 200);
});
log('started');
setInterval(() => {}, 1000);
`;

describe('npm start with Electron (a stand-in)', () => {
  let dir: string;
  let logFile: string;
  let run: ChildProcess | undefined;

  beforeEach(() => {
    dir = scratchProject();
    mkdirSync(join(dir, 'electron-dist'));
    writeFileSync(join(dir, 'electron-dist/package.json'), '{"type":"commonjs"}');
    writeFileSync(join(dir, 'electron-dist/electron'), STAND_IN);
    chmodSync(join(dir, 'electron-dist/electron'), 0o755);
    logFile = join(dir, 'stand-in.log');
  });
  afterEach(() => {
    if (run?.pid !== undefined && run.exitCode === null) {
      try {
        process.kill(-run.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (): Promise<ChildProcess> => {
    run = spawn(NODE, [join(dir, 'scripts/start.js')], {
      cwd: dir,
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: join(dir, 'electron-dist'), STAND_IN_LOG: logFile },
    });
    await until(() => existsSync(logFile) && lines().includes('started'));
    return run;
  };
  const lines = (): string[] => (existsSync(logFile) ? readFileSync(logFile, 'utf8').trimEnd().split('\n') : []);
  const exitOf = (child: ChildProcess): Promise<number | null> =>
    new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));

  it('lets Electron quit on one Ctrl-C: the terminal’s SIGINT reaches it once, never a second time from start.js', async () => {
    const child = await start();
    process.kill(-(child.pid as number), 'SIGINT'); // Ctrl-C: the whole foreground group
    expect(await exitOf(child)).toBe(0);
    expect(lines()).toEqual(['started', 'SIGINT', 'quit cleanly']);
  });

  it('forwards SIGTERM sent to start.js alone, and never a SIGINT sent to it alone', async () => {
    const child = await start();
    process.kill(child.pid as number, 'SIGINT');
    process.kill(child.pid as number, 'SIGTERM');
    expect(await exitOf(child)).toBe(0);
    expect(lines()).toEqual(['started', 'SIGTERM', 'quit cleanly']);
  });
});

async function until(done: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
