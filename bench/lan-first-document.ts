/**
 * The `lan` suite's first table: peer B's process spawned in its namespace with LAN on and a
 * cached certificate (the Big Peer gone), timed until B holds the document its neighbour A wrote
 * just before. Who dials first depends on the peer keys (the smaller dials at once; the larger
 * waits LAN_TIE_BREAK_MS for the other to dial), so there are two B's, one on each side of A's
 * key. Baselines: B given A's address instead of discovering it, and a bare Node process with a
 * `ws` client fetching one frame from a server in A's namespace.
 */
import { AgentProcess } from '../src/testing/netns/agent-process.ts';
import type { BigPeerProcess } from '../src/testing/netns/big-peer-process.ts';
import { lanPeerConfig, startLanPeers, waitForMesh, type LanPeer, type LanPeerOptions } from '../src/testing/netns/lan-peers.ts';
import type { TestNetwork } from '../src/testing/netns/netns.ts';
import { generateDocuments } from './documents.ts';
import { check, median, type Row, type SuiteContext } from './harness.ts';
import { SEED, STEP_TIMEOUT_MS, alternate, ms, pause, peerOptions, withNetwork, type MeasuredSide } from './lan-common.ts';
import { RawChild } from './lan-raw.ts';

const FIRST = { warmup: 1, repeat: 7, budgetMs: 90_000 } as const;
/** Fresh B's tried until there is one on each side of A's key (each side is a coin toss). */
const MAX_CANDIDATES = 16;
const SUBSCRIPTION = 'SELECT * FROM firsts';

/**
 * Two B's, one whose key sorts before A's and one after, each logged in once and seen meeting A
 * over mDNS, so that every timed start finds its certificate cached and A has met it before.
 */
async function certifiedNeighbours(
  context: SuiteContext,
  net: TestNetwork,
  big: BigPeerProcess,
  a: LanPeer,
  agents: AgentProcess[],
  serviceType: string,
): Promise<{ smaller: LanPeerOptions; larger: LanPeerOptions }> {
  let smaller: LanPeerOptions | undefined;
  let larger: LanPeerOptions | undefined;
  for (let i = 0; i < MAX_CANDIDATES && (smaller === undefined || larger === undefined); i++) {
    const options = peerOptions(context, net, big, 'b', serviceType, SUBSCRIPTION);
    const agent = AgentProcess.spawnNow(net.namespaceOf('b'), lanPeerConfig(options));
    agents.push(agent);
    try {
      const { peerKey } = await agent.ready(STEP_TIMEOUT_MS);
      const isSmaller = peerKey < a.peerKey;
      if (isSmaller ? smaller === undefined : larger === undefined) {
        await agent.call('start', {}, STEP_TIMEOUT_MS);
        await waitForMesh([a, { agent, role: 'b', peerKey }], STEP_TIMEOUT_MS);
        if (isSmaller) smaller = options;
        else larger = options;
        context.log(`  B ${peerKey.slice(0, 8)}… sorts ${isSmaller ? 'before' : 'after'} A ${a.peerKey.slice(0, 8)}…`);
      }
    } finally {
      await agent.stop();
      agents.splice(agents.indexOf(agent), 1);
    }
    await pause(200);
  }
  check(smaller !== undefined && larger !== undefined, () => `no B on each side of A's key after ${MAX_CANDIDATES} fresh peers`);
  return { smaller: smaller as LanPeerOptions, larger: larger as LanPeerOptions };
}

export async function firstDocumentRows(context: SuiteContext): Promise<Row[]> {
  return withNetwork(context, 'start → first document', async (net, big, agents) => {
    const serviceType = `syncmesh-b${process.pid}f`;
    const [a] = (await startLanPeers([peerOptions(context, net, big, 'a', serviceType, SUBSCRIPTION)], agents)) as [LanPeer];
    const { smaller, larger } = await certifiedNeighbours(context, net, big, a, agents, serviceType);
    await big.stop(); // From here on, A is the only place B can get a document from.
    const addressOfA = ((await a.agent.call('start', {})).lanListenUrl as string).replace('0.0.0.0', net.addressOf('a'));
    const doc = generateDocuments(1, { seed: SEED })[0] as Record<string, unknown>;
    const server = new RawChild(net.namespaceOf('a'), { mode: 'serve', host: net.addressOf('a'), greeting: doc });
    try {
      const port = Number((await server.next('listening', STEP_TIMEOUT_MS)).port);
      let seq = 0;
      /** Where each side's time went: spawn → store open (`ready`) → `startSync()` resolved. */
      const splits = new Map<string, { ready: number[]; started: number[] }>();
      /** B's process from spawn until it holds the document A wrote last. */
      const peerStart = (label: string, options: LanPeerOptions, config: LanPeerOptions['config']): MeasuredSide => {
        let id = '';
        const split = { ready: [] as number[], started: [] as number[] };
        splits.set(label, split);
        return {
          setup: async () => {
            id = `first-${++seq}`;
            await a.agent.call('execute', { dql: 'INSERT INTO firsts DOCUMENTS (:doc)', args: { doc: { ...doc, _id: id } } });
          },
          measure: async () => {
            const t0 = performance.now();
            const b = AgentProcess.spawnNow(net.namespaceOf('b'), lanPeerConfig({ ...options, config: { bigPeer: false, ...config } }));
            agents.push(b);
            try {
              const [, , elapsed] = await Promise.all([
                b.ready(STEP_TIMEOUT_MS).then(() => split.ready.push(performance.now() - t0)),
                b.call('start', {}, STEP_TIMEOUT_MS).then(() => split.started.push(performance.now() - t0)),
                b.waitRows(`${SUBSCRIPTION} WHERE _id = :id`, 1, STEP_TIMEOUT_MS, { id }).then(() => performance.now() - t0),
              ]);
              return elapsed;
            } finally {
              await b.stop();
              agents.splice(agents.indexOf(b), 1);
              await pause(200); // A sees the session end and the goodbye before the next start.
            }
          },
        };
      };
      const raw: MeasuredSide = {
        measure: async () => {
          const t0 = performance.now();
          const client = new RawChild(net.namespaceOf('b'), { mode: 'fetch', url: `ws://${net.addressOf('a')}:${port}`, once: 1 });
          try {
            const done = await client.next('done', STEP_TIMEOUT_MS);
            check(done.received === 1, () => `the raw client received ${String(done.received)} documents, expected 1`);
            return performance.now() - t0;
          } finally {
            await client.stop();
          }
        },
      };
      const sides = [
        peerStart('B dials (its key < A’s)', smaller, {}),
        peerStart('A dials (B’s key > A’s)', larger, {}),
        peerStart('given A’s address', smaller, { lan: false, connect: [addressOfA] }),
        raw,
      ];
      context.log(`start → first document: ${FIRST.warmup} warm-up, then up to ${FIRST.repeat} repetitions of each side`);
      const [dials, dialed, given, bare] = (await alternate(sides, FIRST)) as [number[], number[], number[], number[]];
      context.log(
        `  B dials ${dials.map(ms).join(', ')}; A dials ${dialed.map(ms).join(', ')}; given A's address ${given.map(ms).join(', ')}; raw ${bare.map(ms).join(', ')}`,
      );
      for (const [label, split] of splits)
        context.log(`  ${label}, warm-up included: store open at ${ms(median(split.ready))}, startSync() resolved at ${ms(median(split.started))} (medians)`);
      const row = (name: string, ours: number[], raw: number[]): Row => ({
        name,
        kind: 'time',
        ours: median(ours),
        raw: median(raw),
        repetitions: ours.length,
      });
      return [
        row('B’s key < A’s: B dials at once (raw: Node process, ws client, 1 frame)', dials, bare),
        row('B’s key < A’s: B dials at once (baseline: B given A’s address, no mDNS)', dials, given),
        row('B’s key > A’s: A dials when it sees B (raw: Node process, ws client, 1 frame)', dialed, bare),
        row('B’s key > A’s: A dials when it sees B (baseline: B given A’s address, no mDNS)', dialed, given),
      ];
    } finally {
      await server.stop();
    }
  });
}
