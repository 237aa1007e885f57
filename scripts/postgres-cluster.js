// A throwaway PostgreSQL cluster for tests and benchmarks: initdb into a temporary directory,
// started on 127.0.0.1 on a free port with settings that trade durability for speed, stopped and
// deleted afterwards. The vitest global setup (scripts/vitest-postgres-setup.ts) and .ci/run use it.
//
//   node scripts/postgres-cluster.js start DIR   prints one line, postgres://postgres@127.0.0.1:PORT/postgres,
//                                                and leaves the server running (detached)
//   node scripts/postgres-cluster.js stop DIR    stops it and removes DIR
//
// Without PostgreSQL's server binaries both exit 2 with POSTGRES_HOW_TO. The binaries are looked
// for under /usr/lib/postgresql/*/bin (Debian, Ubuntu: the highest version), then on the PATH;
// SYNCMESH_POSTGRES_BIN=/some/bin names the directory instead.
// initdb, pg_ctl and postgres refuse to run as root: as root they run as the `postgres` user.
import { execFile, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { appendFile, chmod, chown, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const POSTGRES_HOW_TO =
  "PostgreSQL was not found: the Big Peer's PostgreSQL tests need its server binaries (initdb, pg_ctl, postgres) " +
  'to start a throwaway cluster. Install them: `apt-get install -y postgresql` on Debian or Ubuntu ' +
  '(other systems: the PostgreSQL server package). Or set SYNCMESH_TEST_POSTGRES=postgres://user@host:port/db ' +
  'to a running server on which the tests may create and drop databases.';

const SERVER_BINARIES = ['initdb', 'pg_ctl', 'postgres'];
const START_TIMEOUT_S = 30;
const STOP_TIMEOUT_S = 15;
// The longest unix socket path Linux takes is 107 bytes; PostgreSQL refuses to start when it cannot make one.
const MAX_SOCKET_PATH = 100;

/** @param {string} dir */
function holdsServerBinaries(dir) {
  return SERVER_BINARIES.every((name) => {
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * The directory holding initdb, pg_ctl and postgres, or undefined.
 * @param {{ root?: string, path?: string }} [search] where to look instead of /usr/lib/postgresql and $PATH
 * @returns {string | undefined}
 */
export function findPostgresBinaries(search = {}) {
  if (search.root === undefined && search.path === undefined && process.env.SYNCMESH_POSTGRES_BIN) {
    const named = process.env.SYNCMESH_POSTGRES_BIN;
    return holdsServerBinaries(named) ? named : undefined;
  }
  const root = search.root ?? '/usr/lib/postgresql';
  /** @type {string[]} */
  let versions = [];
  try {
    versions = readdirSync(root);
  } catch {
    // no such directory
  }
  const byVersion = versions.filter((name) => /^\d+(\.\d+)?$/.test(name)).sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  for (const version of byVersion) {
    const dir = path.join(root, version, 'bin');
    if (holdsServerBinaries(dir)) return dir;
  }
  for (const dir of (search.path ?? process.env.PATH ?? '').split(path.delimiter)) {
    if (dir !== '' && holdsServerBinaries(dir)) return dir;
  }
  return undefined;
}

const asRoot = typeof process.geteuid === 'function' && process.geteuid() === 0;

/**
 * Runs a PostgreSQL binary (as the postgres user when we are root), bounded in time.
 * @param {string} binDir
 * @param {string} name
 * @param {string[]} args
 * @param {{ cwd: string, timeoutMs: number }} options
 * @returns {Promise<{ ok: boolean, output: string }>}
 */
function runPostgresBinary(binDir, name, args, { cwd, timeoutMs }) {
  const binary = path.join(binDir, name);
  const [file, fileArgs] = asRoot ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
  return new Promise((resolve) => {
    execFile(
      file,
      fileArgs,
      { cwd, timeout: timeoutMs, killSignal: 'SIGKILL', env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`.trim();
        if (error === null) resolve({ ok: true, output });
        else
          resolve({
            ok: false,
            output: `${output}\n(${name} ${error.killed ? `killed after ${timeoutMs} ms` : `failed: ${error.message.split('\n')[0]}`})`.trim(),
          });
      },
    );
  });
}

/** @returns {Promise<number>} a TCP port free on 127.0.0.1 right now */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** @param {string} file @param {number} lines */
async function tail(file, lines) {
  try {
    return (await readFile(file, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no server log)';
  }
}

/** @param {string} text a value for postgresql.conf */
function confString(text) {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/** @param {string} dir */
function postmasterPid(dir) {
  try {
    const pid = Number.parseInt(readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0] ?? '', 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether process `pid` runs (a zombie does not), and what it is called ('' when unknown).
 * @param {number} pid
 * @returns {{ running: boolean, name: string }}
 */
function processState(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EPERM') return { running: false, name: '' };
  }
  let stat;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8'); // pid (name) state ...
  } catch {
    return { running: !existsSync('/proc/self/stat'), name: '' }; // without /proc (not Linux), signal 0 has to do
  }
  const close = stat.lastIndexOf(')');
  const state = stat.slice(close + 2, close + 3);
  return { running: state !== 'Z' && state !== 'X', name: stat.slice(stat.indexOf('(') + 1, close) };
}

/**
 * Whether `pid` (from postmaster.pid) is a live PostgreSQL server, not a pid reused by something else.
 * @param {number} pid
 */
function alive(pid) {
  const { running, name } = processState(pid);
  return running && (name === '' || /postgres|postmaster/.test(name));
}

/** @param {number} pid */
function kill(pid) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * Stops the cluster in `dir` if it runs (fast shutdown, else immediate, else SIGKILL), then removes `dir`.
 * @param {string} dir
 * @param {string | undefined} binDir
 */
async function stopCluster(dir, binDir) {
  const data = path.join(dir, 'data');
  const pid = postmasterPid(dir);
  if (pid !== undefined && alive(pid)) {
    let stopped = false;
    if (binDir !== undefined) {
      for (const mode of ['fast', 'immediate']) {
        const result = await runPostgresBinary(binDir, 'pg_ctl', ['stop', '-D', data, '-m', mode, '-w', '-t', String(STOP_TIMEOUT_S)], {
          cwd: dir,
          timeoutMs: (STOP_TIMEOUT_S + 5) * 1000,
        });
        if (result.ok || !alive(pid)) {
          stopped = true;
          break;
        }
      }
    }
    if (!stopped && alive(pid)) {
      kill(pid); // its backends exit on their own once the postmaster is gone
      for (let i = 0; i < 50 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  let entries;
  try {
    entries = await readdir(dir);
  } catch {
    return; // gone already
  }
  // Only what a throwaway cluster puts there, so that a mistaken DIR is never deleted.
  const foreign = entries.filter((name) => name !== 'data' && name !== 'server.log' && !name.startsWith('.s.PGSQL.'));
  if (foreign.length > 0) throw new Error(`Not removing ${dir}: it holds ${foreign.join(', ')}, which a throwaway PostgreSQL cluster does not make`);
  await rm(dir, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * Makes the empty directory `dir` a new cluster and starts it on 127.0.0.1 on a free port.
 * @param {string} dir
 * @param {string} binDir
 * @returns {Promise<string>} its URL
 */
async function initAndStart(dir, binDir) {
  await chmod(dir, 0o700);
  if (asRoot) {
    const { uid, gid } = postgresUser();
    await chown(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  const init = await runPostgresBinary(binDir, 'initdb', ['-D', data, '--auth=trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync'], {
    cwd: dir,
    timeoutMs: 120_000,
  });
  if (!init.ok)
    throw new Error(
      `initdb of a throwaway PostgreSQL cluster in ${data} failed${asRoot && /permission denied/i.test(init.output) ? ' (initdb runs as the postgres user, so every directory above it must let others through)' : ''}:\n${init.output}`,
    );
  const socketDir = path.join(dir, '.s.PGSQL.65535').length <= MAX_SOCKET_PATH ? dir : '';
  const settings = [
    '# A throwaway test cluster (scripts/postgres-cluster.js): speed over durability.',
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = ${confString(socketDir)}`,
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    'wal_level = minimal',
    'max_wal_senders = 0',
    'max_connections = 300',
    'shared_buffers = 128MB',
    // Dynamic shared memory in files of the data directory, not /dev/shm (small in containers).
    'dynamic_shared_memory_type = mmap',
    "timezone = 'UTC'",
    '',
  ].join('\n');
  await appendFile(path.join(data, 'postgresql.conf'), `\n${settings}`);
  let lastFailure = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    // pg_ctl -w waits until the server accepts connections, or says it did not in time.
    const start = await runPostgresBinary(binDir, 'pg_ctl', ['start', '-D', data, '-l', log, '-o', `-p ${port}`, '-w', '-t', String(START_TIMEOUT_S)], {
      cwd: dir,
      timeoutMs: (START_TIMEOUT_S + 10) * 1000,
    });
    if (start.ok) return `postgres://postgres@127.0.0.1:${port}/postgres`;
    const serverLog = await tail(log, 30);
    const pid = postmasterPid(dir);
    if (pid !== undefined && alive(pid)) {
      // It did not become ready in time: stop it rather than leave it behind.
      await runPostgresBinary(binDir, 'pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w', '-t', '10'], { cwd: dir, timeoutMs: 15_000 });
      if (alive(pid)) kill(pid);
    }
    lastFailure = `${start.output}\nServer log (last lines of ${log}):\n${serverLog}`;
    if (!/could not bind|address already in use/i.test(serverLog)) break; // another port only helps when this one was taken
  }
  throw new Error(`A throwaway PostgreSQL cluster in ${dir} did not start (waited up to ${START_TIMEOUT_S} s):\n${lastFailure}`);
}

/** @returns {{ uid: number, gid: number }} */
function postgresUser() {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name === 'postgres' && uid !== undefined && gid !== undefined) return { uid: Number(uid), gid: Number(gid) };
  }
  throw new Error(
    'Running as root, but there is no `postgres` user to run initdb and postgres as (installing PostgreSQL, e.g. `apt-get install -y postgresql`, makes one)',
  );
}

/**
 * Starts a throwaway PostgreSQL cluster: a new data directory (`dir`, or a temporary one), trust
 * authentication, listening on 127.0.0.1 on a free port and on a unix socket in `dir`.
 * A watchdog process stops it and removes `dir` if this process ends without calling stop().
 * @param {{ dir?: string, search?: { root?: string, path?: string }, watchdog?: boolean }} [options]
 * @returns {Promise<{ url: string, dir: string, stop: () => Promise<void> }>}
 */
export async function startThrowawayCluster(options = {}) {
  const binDir = findPostgresBinaries(options.search);
  if (binDir === undefined) throw new Error(POSTGRES_HOW_TO);
  let dir;
  if (options.dir === undefined) {
    dir = await mkdtemp(path.join(os.tmpdir(), 'syncmesh-pg-'));
  } else {
    dir = path.resolve(options.dir);
    await mkdir(dir, { recursive: true });
    if ((await readdir(dir)).length > 0) throw new Error(`${dir} is not empty: a throwaway PostgreSQL cluster needs an empty or new directory`);
  }
  const watchdog =
    options.watchdog === false
      ? undefined
      : spawn(process.execPath, [fileURLToPath(import.meta.url), 'watch', String(process.pid), dir, binDir], { detached: true, stdio: 'ignore' });
  watchdog?.unref();
  /** @type {Promise<void> | undefined} */
  let stopping;
  const stop = () => {
    stopping ??= (async () => {
      if (watchdog?.pid !== undefined && watchdog.exitCode === null && watchdog.signalCode === null) {
        try {
          process.kill(watchdog.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await stopCluster(dir, binDir);
    })();
    return stopping;
  };
  try {
    return { url: await initAndStart(dir, binDir), dir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Waits for process `parentPid` to end, then stops the cluster in `dir` (unless it is gone already).
 * @param {number} parentPid
 * @param {string} dir
 * @param {string} binDir
 */
async function watch(parentPid, dir, binDir) {
  while (processState(parentPid).running && existsSync(dir)) await new Promise((resolve) => setTimeout(resolve, 1000));
  if (existsSync(dir)) await stopCluster(dir, binDir);
}

/** @param {string | undefined} file */
function realPath(file) {
  try {
    return file ? realpathSync(file) : '';
  } catch {
    return '';
  }
}
if (realPath(process.argv[1]) === realPath(fileURLToPath(import.meta.url))) {
  const [command, dir, ...extra] = process.argv.slice(2);
  const usage = 'usage: node scripts/postgres-cluster.js start DIR | stop DIR';
  try {
    if (command === 'start' && dir !== undefined && extra.length === 0) {
      const binDir = findPostgresBinaries();
      if (binDir === undefined) {
        console.error(POSTGRES_HOW_TO);
        process.exit(2);
      }
      const cluster = await startThrowawayCluster({ dir, watchdog: false });
      process.stdout.write(`${cluster.url}\n`);
    } else if (command === 'stop' && dir !== undefined && extra.length === 0) {
      await stopCluster(path.resolve(dir), findPostgresBinaries());
    } else if (command === 'watch' && dir !== undefined && extra.length === 2) {
      await watch(Number(dir), extra[0] ?? '', extra[1] ?? '');
    } else {
      console.error(usage);
      process.exit(1);
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
