/**
 * `npm run bench [-- suite …]`: runs every benchmark suite in order (or the ones named) and prints
 * one table per suite on stdout, progress on stderr. Exits 0 when everything ran, targets missed
 * or not (a MISS is a finding, not a failure); 1 when a suite crashed; 2 for an unknown suite or
 * option (one line on stderr). `-h`/`--help` prints the suites, each name once (bench/run-args.ts).
 * Temporary directories live under one root in os.tmpdir(), removed at the end.
 */
import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatTable, verdictOf, type Suite, type SuiteContext } from './harness.ts';
import { bigPeerSuite } from './big-peer.bench.ts';
import { evictionSuites } from './eviction.bench.ts';
import { inspectorSuite } from './inspector.bench.ts';
import { lanSuites } from './lan.bench.ts';
import { longStatementSuite } from './long-statement.bench.ts';
import { nodesFanOutSuite, nodesSuite, nodesWritesSuite } from './nodes.bench.ts';
import { nodesMillionSuite } from './nodes-million.bench.ts';
import { replicationSuites } from './replication.bench.ts';
import { helpText, parseBenchArgs, suiteGroups } from './run-args.ts';
import { simulatorSuite } from './simulator.bench.ts';
import { storeSuite } from './store.bench.ts';
import { storeIndexesSuite } from './store-indexes.bench.ts';
import { txnSuites } from './txn.bench.ts';

/** Every suite, in the order they run. Adding a suite is adding it here. */
const SUITES: readonly Suite[] = [
  storeSuite,
  storeIndexesSuite,
  ...txnSuites,
  bigPeerSuite,
  longStatementSuite,
  ...replicationSuites,
  nodesSuite,
  nodesFanOutSuite,
  nodesWritesSuite,
  nodesMillionSuite,
  ...evictionSuites,
  inspectorSuite,
  ...lanSuites,
  simulatorSuite,
];

function machine(): string {
  const db = new Database(':memory:');
  const sqlite = db.prepare('SELECT sqlite_version()').pluck().get() as string;
  db.close();
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${new Date().toISOString()} · Node ${process.versions.node} · SQLite ${sqlite} · ${availableParallelism()} cores (${cpu})`;
}

const args = parseBenchArgs(process.argv.slice(2), SUITES);
if (args.kind === 'help') {
  console.log(helpText(suiteGroups(SUITES)));
  process.exit(0);
}
if (args.kind === 'error') {
  process.stderr.write(`${args.message}\n`);
  process.exit(2);
}
const suites = args.suites;

const root = mkdtempSync(join(tmpdir(), 'syncmesh-bench-'));
const removeRoot = (): void => rmSync(root, { recursive: true, force: true });
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    removeRoot();
    process.exit(130);
  });
}

let nextDir = 0;
const context: SuiteContext = {
  tempDir(label) {
    const dir = join(root, `${String(nextDir++).padStart(3, '0')}-${label}`);
    mkdirSync(dir);
    return dir;
  },
  log(message) {
    process.stderr.write(`  ${message}\n`);
  },
};

try {
  console.log(machine());
  const started = performance.now();
  const misses: string[] = [];
  for (const suite of suites) {
    process.stderr.write(`suite ${suite.name}\n`);
    const rows = await suite.run(context);
    console.log(`\n${formatTable(suite.title, rows)}`);
    for (const row of rows) if (verdictOf(row) === 'MISS') misses.push(`${suite.name}: ${row.name}`);
  }
  console.log(`\n${misses.length === 0 ? 'every target met' : `${misses.length} target(s) missed`} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  removeRoot();
}
