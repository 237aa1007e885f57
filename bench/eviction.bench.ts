/**
 * The eviction suite (issue 8): EVICT of 100,000 documents on SQLite stores, its time against
 * raw better-sqlite3 and where the freed space goes, for stores with and without auto-vacuum;
 * then the evict-loop scenario's network and memory cost per cycle, the right way against the
 * wrong way. Four tables, all under the suite name `eviction`; docs/benchmarks.md explains each
 * row. The stores are built once (untimed) and shared by the first three tables.
 */
import type { Row, Suite, SuiteContext } from './harness.ts';
import { DOCS, thousands } from './eviction-common.ts';
import { LOOP_CYCLES, LOOP_DOCS, loopRows } from './eviction-loop.ts';
import { fateRows, sizeRows } from './eviction-space.ts';
import { timeRows } from './eviction-time.ts';

function suite(title: string, run: (context: SuiteContext) => Promise<Row[]>): Suite {
  return {
    name: 'eviction',
    title,
    summary: `EVICT of ${thousands(DOCS)} docs (time, freed space) vs raw better-sqlite3 DELETE; the evict-loop cycle vs the wrong way`,
    durationSeconds: 94, // measured: one run on the 2-core VM, 2026-11-26
    run,
  };
}

export const evictionSuites: readonly Suite[] = [
  suite(
    `Eviction · EVICT FROM docs WHERE createdAt <= :ttl on a new SQLite store as SyncMesh makes it (auto_vacuum: next table) of ${thousands(DOCS)} docs (~210 B), each repetition on a fresh copy (raw = better-sqlite3 DELETE of the same rows from t(id TEXT PRIMARY KEY, body TEXT), same auto_vacuum)`,
    timeRows,
  ),
  suite(
    `Eviction · the store on disk (file + -wal + -shm) around an EVICT of all ${thousands(DOCS)} docs, by kind of store (raw = better-sqlite3 table with the same auto_vacuum, same steps)`,
    sizeRows,
  ),
  suite(`Eviction · where the freed space goes: the store's size ÷ its size before the EVICT (ours = the size then, raw = the size before)`, fateRows),
  suite(
    `Eviction · evict-loop scenario, ${thousands(LOOP_DOCS)} docs, ${LOOP_CYCLES} cycles each way, small peer ↔ Big Peer (both SQLite) over loopback WebSocket in this process (ours = right way, spec 3.2 cycle; raw = wrong way, EVICT with SELECT * still subscribed)`,
    loopRows,
  ),
];
