// Fetching Electron's binary the way node_modules/electron/install.js does: @electron/get's
// downloadArtifact with install.js's arguments, so ELECTRON_MIRROR, ELECTRON_CUSTOM_DIR,
// ELECTRON_CUSTOM_FILENAME, electron_config_cache and remote checksums
// (electron_use_remote_checksums) mean what they mean to Electron's own tooling, and the
// checksum is verified by @electron/get (against electron's checksums.json, or the mirror's
// SHASUMS256.txt). What we add is what install.js lacks on a machine that cannot reach the host:
// a bound (no byte for SYNCMESH_ELECTRON_FETCH_TIMEOUT seconds, 20 by default, ends the attempt;
// a refused connection ends it at once), progress on the terminal, and one line saying why it
// failed and what to do. Plain JavaScript.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { electronCacheDir, extractElectron, targetArch, targetPlatform } from './electron-binary.js';
import { progressReporter } from './electron-progress.js';

/** Seconds without a byte after which an attempt ends, unless SYNCMESH_ELECTRON_FETCH_TIMEOUT says otherwise. */
export const DEFAULT_STALL_SECONDS = 20;

/** What to run once whatever stopped the fetch is fixed. */
const LATER = 'then run `npm run electron:install`';

/** A fetch that failed, with the one line that says why and what to do. */
export class ElectronFetchError extends Error {
  /** @param {string} line */
  constructor(line, cause) {
    super(line, { cause });
    this.name = 'ElectronFetchError';
  }
}

/** No byte arrived for the bound: the reason the attempt's AbortController aborts with. */
class StallError extends Error {
  constructor(url, seconds) {
    super(`no byte from ${hostOf(url)} for ${seconds} s`);
    this.name = 'StallError';
    this.url = url;
  }
}

/** An answer other than 2xx. */
class HttpStatusError extends Error {
  constructor(url, status, statusText) {
    super(`${hostOf(url)} answered ${status}${statusText ? ` ${statusText}` : ''} for ${url}`);
    this.name = 'HttpStatusError';
    this.url = url;
    this.status = status;
  }
}

/** The bound in seconds from the environment: a positive number, or the default. */
export function stallSeconds(env = process.env) {
  const value = Number(env.SYNCMESH_ELECTRON_FETCH_TIMEOUT);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_STALL_SECONDS;
}

/** Why fetching is off, or null: ELECTRON_SKIP_BINARY_DOWNLOAD set to anything but empty, 0 or false. */
export function skipReason(env = process.env) {
  const value = env.ELECTRON_SKIP_BINARY_DOWNLOAD;
  if (value === undefined || value === '' || value === '0' || value.toLowerCase() === 'false') return null;
  return 'ELECTRON_SKIP_BINARY_DOWNLOAD is set, so it is not fetched (unset it and run `npm run electron:install` to fetch it)';
}

/**
 * Downloads, verifies and unpacks Electron for the project's electron package, showing progress on
 * `out`. Resolves to the binary; rejects with an ElectronFetchError whose message is the one line.
 * @param {{ dir: string, version: string }} pkg
 * @param {{ env?: NodeJS.ProcessEnv, out?: NodeJS.WriteStream | { write(s: string): unknown, isTTY?: boolean } }} [options]
 */
export async function fetchElectron(pkg, { env = process.env, out = process.stdout } = {}) {
  const seconds = stallSeconds(env);
  const label = `Electron ${pkg.version}`;
  const progress = progressReporter(out, label);
  const require = createRequire(path.join(pkg.dir, 'package.json'));
  const { downloadArtifact } = await import(pathToFileURL(require.resolve('@electron/get')).href);
  const remoteChecksums = Boolean(env.electron_use_remote_checksums || env.npm_config_electron_use_remote_checksums);
  let zip;
  try {
    zip = await downloadArtifact({
      version: pkg.version,
      artifactName: 'electron',
      force: env.force_no_cache === 'true',
      cacheRoot: env.electron_config_cache,
      checksums: remoteChecksums ? undefined : JSON.parse(fs.readFileSync(path.join(pkg.dir, 'checksums.json'), 'utf8')),
      platform: targetPlatform(env),
      arch: targetArch(env),
      downloader: boundedDownloader(seconds * 1000, progress),
    });
  } catch (error) {
    progress.abandon();
    throw new ElectronFetchError(`Could not fetch ${label}: ${explain(error, { pkg, env, remoteChecksums })}`, error);
  }
  try {
    const binary = await extractElectron(pkg, zip);
    out.write(`${label} is installed (checksum verified): ${binary}\n`);
    return binary;
  } catch (error) {
    throw new ElectronFetchError(`Could not unpack ${label} from ${zip}: ${explain(error, { pkg, env, remoteChecksums })}`, error);
  }
}

/**
 * A @electron/get Downloader on fetch: the same request its default one makes (so a proxy set up
 * through ELECTRON_GET_USE_PROXY or NODE_USE_ENV_PROXY applies alike), aborted when no byte comes
 * for `stallMs`, with progress for the release zip (not for SHASUMS256.txt).
 * @param {number} stallMs
 * @param {ReturnType<typeof progressReporter>} progress
 */
function boundedDownloader(stallMs, progress) {
  return {
    async download(url, targetFilePath) {
      const controller = new AbortController();
      let timer;
      const rearm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => controller.abort(new StallError(url, stallMs / 1000)), stallMs);
      };
      const shown = path.posix.basename(new URL(url).pathname) !== 'SHASUMS256.txt';
      rearm();
      try {
        await fs.promises.mkdir(path.dirname(targetFilePath), { recursive: true });
        const response = await fetch(url, { signal: controller.signal });
        if (!response.ok || !response.body) throw new HttpStatusError(url, response.status, response.statusText);
        const length = Number.parseInt(response.headers.get('content-length') ?? '', 10);
        const total = Number.isFinite(length) ? length : null;
        if (shown) progress.start(url, total);
        let transferred = 0;
        await pipeline(
          Readable.fromWeb(response.body),
          async function* (source) {
            for await (const chunk of source) {
              rearm();
              transferred += chunk.length;
              if (shown) progress.update(transferred);
              yield chunk;
            }
          },
          fs.createWriteStream(targetFilePath),
          { signal: controller.signal },
        );
        if (shown) progress.done();
      } catch (error) {
        throw controller.signal.aborted ? controller.signal.reason : error;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The system error code of a failed fetch or file operation, looking through fetch's causes. */
function codeOf(error) {
  for (let e = error; e; e = e.cause) {
    if (typeof e.code === 'string' && e.code !== 'ABORT_ERR') return { code: e.code, error: e };
    if (Array.isArray(e.errors) && e.errors[0]?.code) return { code: e.errors[0].code, error: e.errors[0] };
  }
  return { code: undefined, error };
}

/** Why the attempt failed and what to do, as the rest of the one line. */
function explain(error, { pkg, env, remoteChecksums }) {
  const mirror = env.ELECTRON_MIRROR || env.npm_config_electron_mirror;
  const network = `set ELECTRON_MIRROR=<a mirror of Electron's releases you can reach, ending in />${mirror ? ` (now ${mirror})` : ''}, or a proxy (HTTPS_PROXY=… with NODE_USE_ENV_PROXY=1), ${LATER}`;
  if (error instanceof StallError) return `${error.message}; ${network}`;
  if (error instanceof HttpStatusError)
    return `${error.message}; ${error.status === 404 ? 'the mirror has no such file: check ELECTRON_MIRROR and ELECTRON_CUSTOM_DIR' : 'try again later, or ' + network}`;
  const name = error?.constructor?.name;
  if (name === 'ChecksumMismatchError') {
    const against = remoteChecksums ? "the mirror's SHASUMS256.txt" : 'the checksums.json of the electron package';
    return `checksum mismatch: ${error.filename ?? 'the download'} does not match ${against}, so it was refused; check the mirror (ELECTRON_MIRROR) serves Electron ${pkg.version}'s own files, ${LATER}`;
  }
  if (name === 'NoChecksumFoundError')
    return `no checksum for ${error.filename} in SHASUMS256.txt, so it was refused; check the mirror (ELECTRON_MIRROR), ${LATER}`;
  const { code, error: cause } = codeOf(error);
  const where = cause?.path ?? cause?.address ?? electronCacheDir(env);
  switch (code) {
    case 'ECONNREFUSED':
      return `${cause.address ?? 'the host'}${cause.port ? `:${cause.port}` : ''} refused the connection; ${network}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host ${cause.hostname ?? ''} cannot be resolved (offline, or no DNS); ${network}`;
    case 'ENETUNREACH':
    case 'EHOSTUNREACH':
      return `the host is unreachable (${cause.address ?? code}); ${network}`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `connecting timed out; ${network}`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return `the connection was closed before the download finished; ${network}`;
    case 'ENOSPC':
      return `the disk is full (writing ${where}); free some space, or point electron_config_cache at another disk, ${LATER}`;
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return `no permission to write ${where}; ${LATER} as a user who may, or set electron_config_cache`;
    default:
      if (code && /CERT|TLS|SSL|SELF_SIGNED/.test(code))
        return `TLS failed (${code}): a proxy substituting its own certificate? Set NODE_EXTRA_CA_CERTS to its CA, ${LATER}`;
      return `${messageChain(error)}${code ? ` (${code})` : ''}; ${LATER}`;
  }
}

/** "fetch failed: bad port": an error's message and its causes'. */
function messageChain(error) {
  const parts = [];
  for (let e = error; e && parts.length < 4; e = e.cause) parts.push(e.message ?? String(e));
  return parts.filter(Boolean).join(': ');
}

function hostOf(url) {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
