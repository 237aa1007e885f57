/**
 * The dependency rule of the architecture note, checked on every import under src/ (static,
 * dynamic, side-effect and `new URL('./x.ts', import.meta.url)` worker imports; test files too).
 *
 * Between the parts of src/:
 * - `shared` imports nothing of src, no Node.js module and no package;
 * - `peer` imports only `shared`;
 * - `big-peer`, `cli` and `main` reach `peer` only through its two entry points:
 *   `peer/index.ts` (what applications use) and `peer/host.ts` (the insides the Big Peer, the CLI
 *   and main need; README, "Entry points");
 * - the CLI runs the Big Peer (`syncmesh big-peer`), and the CLI and main run the app's peer with
 *   the local Big Peer (`big-peer/app-peer.ts`), through `big-peer/index.ts`; the CLI also runs
 *   nodes on PostgreSQL through `big-peer/postgres/index.ts` (so that main's bundle never loads pg);
 * - `preload` and `renderer` take only `shared`; nothing but `main` and `preload` imports electron;
 * - `testing` is the test harness: it may import anything, and only tests (and the harness itself)
 *   may import it. No production file does, so no bundle holds it.
 *
 * Inside `peer`, the layers below, lowest first. A file may import its own folder (or itself,
 * for a top-level file) and any lower layer, never a higher one nor another folder of its own
 * layer: so no cycle between folders either.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

/** The inner order of src/peer, lowest first: folders, and top-level files by name. */
export const PEER_LAYERS: readonly (readonly string[])[] = [
  ['errors.ts', 'time.ts'], // SyncError and its codes; the injected clock and timers
  ['budget.ts', 'log'], // time budgets of long work; the log hub, messages in the spec's text
  ['dql'], // the query language: lexer, parser, AST, values, evaluation
  ['crdt'], // per-field merge, hybrid clocks, document metadata
  ['storage'], // the storage engines (SQLite, in memory) and their SQL translation
  ['query'], // the executor: prepare, select, mutations, arguments, ids, query threads
  ['observers', 'subscriptions'], // live queries; the sync subscription set
  ['store'], // the store: write slot, transactions, collections, eviction watch, peer identity
  ['auth'], // certificates, proofs, identities, the auth client
  ['replication'], // sessions, handshake, transports, mesh tracking
  ['lan'], // LAN discovery and its transport
  ['eviction'], // TTL eviction strategies and the manager
  ['presence'], // the presence job: this peer's document in __presence, and reading the others'
  ['sync'], // the Sync: one peer, all of the above (and the tests that drive whole Syncs)
  ['scenarios'], // scripted runs of several peers (the evict/re-sync loop)
  ['inspector'], // the mesh inspector's server side
  ['index.ts'], // the entry point of applications
  ['host.ts'], // the entry point of the Big Peer, the CLI and main: index.ts and the insides
];

/** Packages (and Node.js modules, as `node:`) each part may import; tests may also import vitest. */
const PACKAGES: Readonly<Record<string, readonly string[]>> = {
  shared: [],
  peer: ['node:', 'better-sqlite3', 'bonjour-service', 'ws'],
  'big-peer': ['node:', 'pg', 'prom-client', 'ws'],
  cli: ['node:', 'ws'],
  main: ['node:', 'electron'],
  preload: ['electron'],
  renderer: ['react', 'react-dom', 'zustand', '@codemirror/', '@lezer/', '@tanstack/react-virtual'],
  testing: ['node:', 'pg', 'ws', 'zustand', 'vitest'],
};

const isTest = (rel: string): boolean => /\.test\.tsx?$/.test(rel);
const partOf = (rel: string): string => rel.split('/')[0] as string;

/** The unit of a file of src/peer: its folder, or its own name at the top level. */
const unitOf = (peerRel: string): string => peerRel.split('/')[0] as string;

const layerOf = (peerRel: string): number => PEER_LAYERS.findIndex((layer) => layer.includes(unitOf(peerRel)));

/**
 * What is wrong with `fromRel` importing `toRel` (both relative to src/, `toRel` a file of src/),
 * or undefined when the rule allows it.
 */
export function violation(fromRel: string, toRel: string): string | undefined {
  const from = partOf(fromRel);
  const to = partOf(toRel);
  const test = isTest(fromRel);
  if (to === 'testing' && from !== 'testing' && !test) return `${fromRel} (production) imports the test harness ${toRel}`;
  if (from === 'testing' || (test && to === 'testing')) return undefined;
  if (from === 'peer' && to === 'peer') {
    const a = fromRel.slice('peer/'.length);
    const b = toRel.slice('peer/'.length);
    if (unitOf(a) === unitOf(b)) return undefined;
    const la = layerOf(a);
    const lb = layerOf(b);
    if (la < 0) return `${fromRel} is in no layer of src/peer (add its folder to PEER_LAYERS)`;
    if (lb < 0) return `${toRel} is in no layer of src/peer (add its folder to PEER_LAYERS)`;
    if (lb > la) return `${fromRel} (layer ${unitOf(a)}) imports ${toRel} of the higher layer ${unitOf(b)}`;
    if (lb === la) return `${fromRel} imports ${toRel}: ${unitOf(a)} and ${unitOf(b)} are of one layer and may not import each other`;
    return undefined;
  }
  if (to === from) return undefined;
  const ok =
    (from === 'peer' && to === 'shared') ||
    (['big-peer', 'cli', 'main'].includes(from) && (to === 'shared' || toRel === 'peer/index.ts' || toRel === 'peer/host.ts')) ||
    (['cli', 'main'].includes(from) && toRel === 'big-peer/index.ts') ||
    (from === 'cli' && toRel === 'big-peer/postgres/index.ts') ||
    (['preload', 'renderer'].includes(from) && to === 'shared');
  return ok ? undefined : `${fromRel} imports ${toRel}`;
}

/** What is wrong with `fromRel` importing the package `spec`, or undefined. */
export function packageViolation(fromRel: string, spec: string): string | undefined {
  const allowed = PACKAGES[partOf(fromRel)];
  if (allowed === undefined) return undefined;
  if (isTest(fromRel) && spec === 'vitest') return undefined;
  const ok = allowed.some((p) => (p.endsWith(':') || p.endsWith('/') ? spec.startsWith(p) : spec === p || spec.startsWith(`${p}/`)));
  return ok ? undefined : `${fromRel} imports the package ${spec}, not one ${partOf(fromRel)} may use`;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"`;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]|new URL\(\s*['"](\.{1,2}\/[^'"]+\.tsx?)['"]\s*,\s*import\.meta\.url/g;

function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) => (m[1] ?? m[2] ?? m[3] ?? m[4]) as string);
}

function allViolations(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const rel = relative(SRC, file);
    if (rel === 'dependency-rule.test.ts') continue;
    for (const spec of importsOf(file)) {
      if (!spec.startsWith('.')) {
        const bad = packageViolation(rel, spec);
        if (bad !== undefined) found.push(bad);
        continue;
      }
      const target = relative(SRC, resolve(dirname(file), spec));
      if (target.startsWith('..')) continue; // package.json, bin/: outside src
      const bad = violation(rel, target);
      if (bad !== undefined) found.push(bad);
    }
  }
  return found;
}

describe('the dependency rule', () => {
  it('holds for every import under src/, production and test files alike', () => {
    expect(allViolations()).toEqual([]);
  });

  it('places every folder of src/peer in a layer', () => {
    const units = new Set(sourceFiles(join(SRC, 'peer')).map((f) => unitOf(relative(join(SRC, 'peer'), f))));
    const placed = new Set(PEER_LAYERS.flat());
    expect([...units].filter((u) => !placed.has(u))).toEqual([]);
  });

  it('refuses an import from a lower layer of src/peer to a higher one, and between folders of one layer', () => {
    expect(violation('peer/store/store.ts', 'peer/sync/sync.ts')).toBe('peer/store/store.ts (layer store) imports peer/sync/sync.ts of the higher layer sync');
    expect(violation('peer/dql/values.ts', 'peer/crdt/merge.ts')).toMatch(/higher layer crdt$/);
    expect(violation('peer/store/store.test.ts', 'peer/replication/session.ts')).toMatch(/higher layer replication$/);
    expect(violation('peer/observers/observer-registry.ts', 'peer/subscriptions/subscription-set.ts')).toMatch(/are of one layer/);
    expect(violation('peer/query/select.ts', 'peer/dql/evaluate.ts')).toBeUndefined();
    expect(violation('peer/sync/sync.ts', 'peer/replication/replicator.ts')).toBeUndefined();
    expect(violation('peer/index.ts', 'peer/host.ts')).toMatch(/higher layer host.ts$/);
  });

  it('keeps the test harness out of production code, and lets tests use it', () => {
    expect(violation('peer/store/store.ts', 'testing/test-mesh.ts')).toMatch(/\(production\) imports the test harness/);
    expect(violation('big-peer/big-peer.ts', 'testing/big-peer/test-helpers.ts')).toMatch(/test harness/);
    expect(violation('peer/replication/replication.test.ts', 'testing/test-mesh.ts')).toBeUndefined();
    expect(violation('testing/test-mesh.ts', 'peer/sync/sync.ts')).toBeUndefined();
  });

  it('lets the other parts reach the peer through its two entry points only', () => {
    expect(violation('big-peer/big-peer.ts', 'peer/host.ts')).toBeUndefined();
    expect(violation('cli/peer.ts', 'peer/index.ts')).toBeUndefined();
    expect(violation('big-peer/big-peer.ts', 'peer/store/store.ts')).toBe('big-peer/big-peer.ts imports peer/store/store.ts');
    expect(violation('renderer/src/App.tsx', 'peer/index.ts')).toBe('renderer/src/App.tsx imports peer/index.ts');
  });

  it('holds each part to the packages it may use', () => {
    expect(packageViolation('renderer/src/App.tsx', 'node:fs')).toMatch(/not one renderer may use/);
    expect(packageViolation('peer/store/store.ts', 'react')).toMatch(/not one peer may use/);
    expect(packageViolation('shared/json.ts', 'node:crypto')).toMatch(/not one shared may use/);
    expect(packageViolation('peer/store/store.ts', 'vitest')).toMatch(/not one peer may use/);
    expect(packageViolation('peer/store/transactions.test.ts', 'vitest')).toBeUndefined();
    expect(packageViolation('renderer/src/ui/editor.tsx', '@codemirror/view')).toBeUndefined();
  });
});
