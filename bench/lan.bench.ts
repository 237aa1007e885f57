/**
 * The LAN suite (`npm run bench -- lan`): peers in network namespaces on one bridge
 * (src/testing/netns), each in a process of its own, finding each other over real mDNS. It
 * needs root, as the LAN tests do, and crashes (never skips) where namespaces cannot be made.
 * Two tables, both under the suite name `lan`; docs/benchmarks.md explains each row.
 *
 * - Start → first document (lan-first-document.ts): B's process spawned with LAN on and a cached
 *   certificate, until it has the document its neighbour A wrote.
 * - Documents per second (lan-throughput.ts): 10,000 documents from A to B over the LAN.
 *
 * Every wait is bounded; every process and namespace is removed at the end, or at exit.
 */
import type { Row, Suite, SuiteContext } from './harness.ts';
import { firstDocumentRows } from './lan-first-document.ts';
import { FLOW_DOCS, flowRows } from './lan-throughput.ts';

function suite(title: string, run: (context: SuiteContext) => Promise<Row[]>): Suite {
  return {
    name: 'lan',
    title,
    summary: 'peers finding each other over real mDNS in network namespaces vs raw ws between them (needs root)',
    durationSeconds: 48, // measured: one run on the 2-core VM, 2026-11-26 (as root)
    run,
  };
}

export const lanSuites: readonly Suite[] = [
  suite(
    'LAN · peer B spawned in its network namespace with LAN on and a cached certificate, until it has the document its neighbour A wrote (mDNS discovery, handshake, sync; raw = Node process + ws client fetching one frame)',
    firstDocumentRows,
  ),
  suite(
    `LAN · ${FLOW_DOCS.toLocaleString('en-US')} documents inserted on peer A until committed on peer B, processes in two network namespaces (raw = ws frames of 500 between the same namespaces; baseline = both peers in one process over 127.0.0.1)`,
    flowRows,
  ),
];
