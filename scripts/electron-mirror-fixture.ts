/**
 * TEST FIXTURE for `npm start` and `npm run electron:install`:
 * - a scratch copy of the project whose node_modules/electron has no binary (the real project's
 *   electron package is never written to), with the project's scripts, sources and other packages
 *   linked, and a stand-in build so that nothing is built;
 * - a stand-in `electron` executable that records its arguments and exits;
 * - a release zip in Electron's layout, written here (stored entries, Unix modes kept);
 * - an Electron mirror on 127.0.0.1 in @electron/get's layout (`<dir>/<file>`, SHASUMS256.txt
 *   beside the zip), which can also serve slowly, stall, or lie about the checksum.
 */
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { NODE, PROJECT_DIR } from '../src/testing/cli/child-process-fixture.ts';

export const ELECTRON_VERSION: string = JSON.parse(readFileSync(join(PROJECT_DIR, 'node_modules/electron/package.json'), 'utf8')).version;
/** The release zip @electron/get asks for on this machine. */
export const ZIP_NAME = `electron-v${ELECTRON_VERSION}-${process.platform}-${process.arch}.zip`;

/**
 * The scratch project: scripts/*.js copied (start.js finds the project from its own folder),
 * src and every package but electron linked, electron's package.json and checksums.json copied.
 */
export function scratchProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'syncmesh-start-'));
  mkdirSync(join(dir, 'scripts'));
  for (const file of readdirSync(join(PROJECT_DIR, 'scripts'))) {
    if (file.endsWith('.js')) copyFileSync(join(PROJECT_DIR, 'scripts', file), join(dir, 'scripts', file));
  }
  copyFileSync(join(PROJECT_DIR, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(PROJECT_DIR, 'src'), join(dir, 'src'));
  mkdirSync(join(dir, 'node_modules'));
  for (const entry of readdirSync(join(PROJECT_DIR, 'node_modules'))) {
    if (entry !== 'electron') symlinkSync(join(PROJECT_DIR, 'node_modules', entry), join(dir, 'node_modules', entry));
  }
  mkdirSync(join(dir, 'node_modules/electron'));
  for (const file of ['package.json', 'checksums.json'])
    copyFileSync(join(PROJECT_DIR, 'node_modules/electron', file), join(dir, 'node_modules/electron', file));
  // A stand-in build, newer than any source: start.js builds nothing then.
  for (const file of ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html']) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), '');
  }
  return dir;
}

/**
 * A stand-in Electron: appends one JSON line to $STAND_IN_LOG with its arguments and whether the
 * first one is an app whose package.json "main" exists, then exits 0.
 */
export const STAND_IN_ELECTRON = `#!${NODE}
const fs = require('node:fs');
const path = require('node:path');
const args = process.argv.slice(2);
let main = null;
try {
  const pkg = JSON.parse(fs.readFileSync(path.join(args[0], 'package.json'), 'utf8'));
  main = fs.existsSync(path.join(args[0], pkg.main)) ? pkg.main : null;
} catch {}
fs.appendFileSync(process.env.STAND_IN_LOG, JSON.stringify({ args, main }) + '\\n');
`;

interface ZipEntry {
  readonly name: string;
  readonly data: Buffer;
  readonly mode?: number;
}

/** A zip archive of stored (uncompressed) entries, with Unix modes, as Electron's releases keep them. */
export function zipOf(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data, mode = 0o644 } of entries) {
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix: the external attributes hold the mode
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(((0o100000 | mode) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** The stand-in release: the executable, dist/version, and `padding` random bytes so that progress shows. */
export function standInRelease(padding = 2 * 1024 * 1024): Buffer {
  return zipOf([
    { name: 'electron', data: Buffer.from(STAND_IN_ELECTRON), mode: 0o755 },
    { name: 'version', data: Buffer.from(ELECTRON_VERSION) },
    { name: 'LICENSE', data: Buffer.from('stand-in\n') },
    { name: 'resources/padding.bin', data: randomBytes(padding) },
  ]);
}

export const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

export type MirrorMode = 'serve' | 'stall-before-answer' | 'stall-mid-body';

export interface Mirror {
  /** The value for ELECTRON_MIRROR (ends in /). */
  readonly url: string;
  /** The paths asked for, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/**
 * Serves `zip` as `<dir>/<ZIP_NAME>` and a SHASUMS256.txt beside it (the zip's own checksum unless
 * `checksum` says otherwise), in 64 KiB chunks 5 ms apart. `dir` defaults to @electron/get's
 * `v<version>`. 'stall-before-answer' accepts every request and never answers;
 * 'stall-mid-body' sends the headers and half of the zip, then nothing.
 */
export async function startMirror(zip: Buffer, options: { dir?: string; checksum?: string; mode?: MirrorMode } = {}): Promise<Mirror> {
  const dir = options.dir ?? `v${ELECTRON_VERSION}`;
  const mode = options.mode ?? 'serve';
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  const sendSlowly = (res: ServerResponse, body: Buffer, stopAt = body.length): void => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(body.length) });
    const step = (from: number): void => {
      if (from >= stopAt) {
        if (stopAt >= body.length) res.end();
        return; // stalled: the socket stays open
      }
      res.write(body.subarray(from, Math.min(from + 65_536, stopAt)));
      later(5, () => step(from + 65_536));
    };
    step(0);
  };
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (mode === 'stall-before-answer') return;
    if (req.url === `/${dir}/${ZIP_NAME}`) {
      sendSlowly(res, zip, mode === 'stall-mid-body' ? Math.floor(zip.length / 2) : zip.length);
    } else if (req.url === `/${dir}/SHASUMS256.txt`) {
      res.end(`${options.checksum ?? sha256(zip)} *${ZIP_NAME}\n`);
    } else {
      res.writeHead(404).end('not found');
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
