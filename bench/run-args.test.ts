import { describe, expect, it } from 'vitest';
import { bigPeerSuite } from './big-peer.bench.ts';
import { evictionSuites } from './eviction.bench.ts';
import type { Suite } from './harness.ts';
import { inspectorSuite } from './inspector.bench.ts';
import { lanSuites } from './lan.bench.ts';
import { nodesSuite } from './nodes.bench.ts';
import { replicationSuites } from './replication.bench.ts';
import { helpText, parseBenchArgs, roughDuration, suiteGroups } from './run-args.ts';
import { storeSuite } from './store.bench.ts';
import { txnSuites } from './txn.bench.ts';

function suite(name: string, title: string, summary = `${name} summary`, durationSeconds = 30): Suite {
  return { name, title, summary, durationSeconds, run: async () => [] };
}

// Two names shared by several suites each, as txn and replication are.
const SUITES: readonly Suite[] = [
  suite('store', 'Store'),
  suite('txn', 'Txn 1', 'txn summary', 60),
  suite('txn', 'Txn 2', 'txn summary', 60),
  suite('replication', 'Repl 1'),
  suite('replication', 'Repl 2'),
];

describe('parseBenchArgs', () => {
  it('runs every suite without arguments', () => {
    expect(parseBenchArgs([], SUITES)).toEqual({ kind: 'run', suites: SUITES });
  });

  it('runs every suite of the names given, in the suites’ order, each once', () => {
    const args = parseBenchArgs(['replication', 'store', 'store'], SUITES);
    expect(args.kind === 'run' && args.suites.map((s) => s.title)).toEqual(['Store', 'Repl 1', 'Repl 2']);
  });

  it('asks for help on -h or --help, wherever it is', () => {
    expect(parseBenchArgs(['--help'], SUITES)).toEqual({ kind: 'help' });
    expect(parseBenchArgs(['-h'], SUITES)).toEqual({ kind: 'help' });
    expect(parseBenchArgs(['store', 'nope', '--help'], SUITES)).toEqual({ kind: 'help' });
  });

  it('refuses an unknown suite in one line that points to --help', () => {
    expect(parseBenchArgs(['x'], SUITES)).toEqual({ kind: 'error', message: 'unknown suite "x"; run npm run bench -- --help for the list' });
    expect(parseBenchArgs(['store', 'x', 'y', 'x'], SUITES)).toEqual({
      kind: 'error',
      message: 'unknown suites "x", "y"; run npm run bench -- --help for the list',
    });
  });

  it('refuses an unknown option', () => {
    expect(parseBenchArgs(['--fast', 'store'], SUITES)).toEqual({ kind: 'error', message: 'unknown option "--fast"; run npm run bench -- --help for usage' });
  });
});

describe('suiteGroups', () => {
  it('lists each name once, in the order of first appearance', () => {
    expect(suiteGroups(SUITES).map((g) => [g.name, g.suites.length])).toEqual([
      ['store', 1],
      ['txn', 2],
      ['replication', 2],
    ]);
  });

  it('refuses suites of one name that disagree on what they measure', () => {
    expect(() => suiteGroups([suite('txn', 'a', 'one'), suite('txn', 'b', 'other')])).toThrow(/txn/);
  });

  it('accepts the real suites: each name once, with a summary and a duration', () => {
    const all = [storeSuite, ...txnSuites, bigPeerSuite, ...replicationSuites, nodesSuite, ...evictionSuites, inspectorSuite, ...lanSuites];
    const groups = suiteGroups(all);
    expect(groups.map((g) => g.name)).toEqual(['store', 'txn', 'big-peer', 'replication', 'nodes', 'eviction', 'inspector', 'lan']);
    for (const group of groups) {
      expect(group.summary.length).toBeGreaterThan(0);
      expect(group.durationSeconds).toBeGreaterThan(0);
    }
  });
});

describe('helpText', () => {
  it('gives the usage, then each name once with its duration and summary', () => {
    const text = helpText(suiteGroups(SUITES));
    expect(text.split('\n')[0]).toBe('Usage: npm run bench [-- SUITE …]');
    expect(text.match(/^ {2}txn\b.*$/gm)).toEqual(['  txn          ~60 s  txn summary']);
    expect(text.match(/^ {2}replication\b/gm)).toHaveLength(1);
    expect(text).toMatch(/^ {2}\(all\) +~2 min$/m);
  });

  it('rounds durations', () => {
    expect([roughDuration(25), roughDuration(44), roughDuration(106), roughDuration(118), roughDuration(631)]).toEqual([
      '25 s',
      '45 s',
      '105 s',
      '2 min',
      '10.5 min',
    ]);
  });
});
