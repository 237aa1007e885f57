/**
 * The `lan` suite's second table: 10,000 documents inserted on peer A (1,000 per statement),
 * timed until peer B, in another namespace, has committed the last one; A and B found each
 * other over mDNS and the Big Peer is gone. Baselines: a bare `ws` server in A's namespace
 * sending the same documents as frames of 500 to a client in B's, which parses them; and the
 * same sync between two peers in this one process over 127.0.0.1.
 */
import { BigPeer, bigPeerConfig } from '../src/big-peer/index.ts';
import { LogHub, Sync, onlinePlayground } from '../src/peer/host.ts';
import { startLanPeers, waitForMesh, type LanPeer } from '../src/testing/netns/lan-peers.ts';
import { generateDocuments } from './documents.ts';
import { check, median, within, type Row, type SuiteContext } from './harness.ts';
import { APP_ID, SEED, STEP_TIMEOUT_MS, TOKEN, alternate, ms, pause, peerOptions, withNetwork, type MeasuredSide } from './lan-common.ts';
import { RawChild } from './lan-raw.ts';

export const FLOW_DOCS = 10_000;
const FLOW_BATCH = 1_000;
const FLOW = { warmup: 1, repeat: 5, budgetMs: 60_000 } as const;

/** Ours over the LAN: A inserts; timed from A's first statement until B's commit of the last document (timestamps of both processes). */
function lanFlow(a: LanPeer, b: LanPeer, docsOf: () => Record<string, unknown>[]): MeasuredSide {
  let watch = { watch: 0, held: 0 };
  let docs: Record<string, unknown>[] = [];
  return {
    setup: async () => {
      docs = docsOf();
      watch = await b.agent.call('watchCount', { collection: 'bulk' });
    },
    measure: async () => {
      const arrived = b.agent.call('waitCount', { watch: watch.watch, count: watch.held + docs.length, timeoutMs: STEP_TIMEOUT_MS }, STEP_TIMEOUT_MS + 5_000);
      const inserted = await a.agent.call('insertMany', { collection: 'bulk', docs, batch: FLOW_BATCH }, STEP_TIMEOUT_MS);
      const { at, count } = await arrived;
      check(count === watch.held + docs.length, () => `B holds ${count} bulk documents, expected ${watch.held + docs.length}`);
      return at - inserted.startedAt;
    },
  };
}

/** Raw: a ws server in A's namespace sends the documents as frames of 500 to a client in B's; timed from the first send until the client parsed the last. */
function rawFlow(server: RawChild, client: RawChild, docsOf: () => Record<string, unknown>[]): MeasuredSide {
  let docs: Record<string, unknown>[] = [];
  return {
    setup: async () => {
      docs = docsOf();
      client.send({ type: 'expect', count: docs.length });
      await client.next('expecting', STEP_TIMEOUT_MS);
    },
    measure: async () => {
      server.send({ type: 'send', docs });
      const sent = await server.next('sent', STEP_TIMEOUT_MS);
      const done = await client.next('done', STEP_TIMEOUT_MS);
      check(done.received === docs.length, () => `the raw client parsed ${String(done.received)} documents, expected ${docs.length}`);
      return Number(done.at) - Number(sent.startedAt);
    },
  };
}

/** The same sync in this process: A listens on 127.0.0.1, B dials it; both on SQLite, certified by a Big Peer in this process. */
async function inProcessFlow(context: SuiteContext, docsOf: () => Record<string, unknown>[]): Promise<{ side: MeasuredSide; close: () => Promise<void> }> {
  const hub = new LogHub({ minimumLogLevel: 'WARN' });
  const errors: string[] = [];
  hub.setCustomLogCallback((e) => void (e.level === 'ERROR' && errors.push(e.message)));
  const big = await within(
    BigPeer.start(bigPeerConfig({ appID: APP_ID, playgroundToken: TOKEN, host: '127.0.0.1', port: 0, logLevel: 'WARN' }), { logHub: hub }),
    STEP_TIMEOUT_MS,
    'starting the in-process Big Peer',
  );
  const identity = onlinePlayground({ appID: APP_ID, token: TOKEN, bigPeerURL: big.url });
  const a = new Sync({
    persistenceDirectory: context.tempDir('loopback-a'),
    logHub: hub,
    identity,
    sync: { bigPeer: false, listen: { host: '127.0.0.1', port: 0 } },
  });
  let b: Sync | undefined;
  const close = async (): Promise<void> => {
    for (const sync of [b, a]) {
      await sync?.stopSync();
      sync?.close();
    }
    await big.close();
    check(errors.length === 0, () => `the in-process peers logged ${errors.length} ERROR(s): ${errors.slice(0, 3).join(' | ')}`);
  };
  try {
    await within(a.startSync(), STEP_TIMEOUT_MS, 'starting sync on A');
    b = new Sync({ persistenceDirectory: context.tempDir('loopback-b'), logHub: hub, identity, sync: { bigPeer: false, connect: [a.listenUrl as string] } });
    b.store.registerSubscription('SELECT * FROM bulk');
    await within(b.startSync(), STEP_TIMEOUT_MS, 'starting sync on B');
    const peerB = b;
    for (let i = 0; i < 300 && peerB.sessions.length === 0; i++) await pause(100);
    check(peerB.sessions.length === 1, () => `B has ${peerB.sessions.length} sessions with A, expected 1`);
    let docs: Record<string, unknown>[] = [];
    let arrived: Promise<number> = Promise.resolve(0);
    let off = (): void => {};
    const side: MeasuredSide = {
      setup: async () => {
        docs = docsOf();
        const wanted = new Set(docs.map((d) => JSON.stringify(d._id)));
        arrived = new Promise<number>((resolve) => {
          off = peerB.store.onCommit((txn) => {
            for (const change of txn.changes) if (change.collection === 'bulk' && change.kind === 'put') wanted.delete(JSON.stringify(change.id));
            if (wanted.size === 0) resolve(performance.now());
          });
        });
      },
      measure: async () => {
        const t0 = performance.now();
        for (let i = 0; i < docs.length; i += FLOW_BATCH) await a.store.execute('INSERT INTO bulk DOCUMENTS (:docs)', { docs: docs.slice(i, i + FLOW_BATCH) });
        return (await within(arrived, STEP_TIMEOUT_MS, `${docs.length} documents reaching B in this process`)) - t0;
      },
      teardown: async () => off(),
    };
    return { side, close };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}

export async function flowRows(context: SuiteContext): Promise<Row[]> {
  return withNetwork(context, 'documents per second', async (net, big, agents) => {
    const subscription = 'SELECT * FROM bulk';
    const serviceType = `syncmesh-b${process.pid}t`;
    const [a, b] = (await startLanPeers(
      ['a', 'b'].map((role) => peerOptions(context, net, big, role, serviceType, subscription)),
      agents,
    )) as [LanPeer, LanPeer];
    await waitForMesh([a, b], STEP_TIMEOUT_MS);
    await big.stop(); // Only the LAN joins them: nothing reaches B through the Big Peer.
    const server = new RawChild(net.namespaceOf('a'), { mode: 'serve', host: net.addressOf('a') });
    let client: RawChild | undefined;
    let loopback: Awaited<ReturnType<typeof inProcessFlow>> | undefined;
    try {
      const port = Number((await server.next('listening', STEP_TIMEOUT_MS)).port);
      client = new RawChild(net.namespaceOf('b'), { mode: 'fetch', url: `ws://${net.addressOf('a')}:${port}` });
      await client.next('open', STEP_TIMEOUT_MS);
      // Each repetition of each side moves documents it has not moved before.
      let next = 0;
      const docsOf = (): Record<string, unknown>[] => {
        const docs = generateDocuments(FLOW_DOCS, { seed: SEED, first: next });
        next += FLOW_DOCS;
        return docs as unknown as Record<string, unknown>[];
      };
      loopback = await inProcessFlow(context, docsOf);
      context.log(`${FLOW_DOCS.toLocaleString('en-US')} documents A → B: ${FLOW.warmup} warm-up, then up to ${FLOW.repeat} repetitions of each side`);
      const [ours, bare, inProcess] = (await alternate([lanFlow(a, b, docsOf), rawFlow(server, client, docsOf), loopback.side], FLOW)) as [
        number[],
        number[],
        number[],
      ];
      context.log(`  ours ${ours.map(ms).join(', ')}; raw ${bare.map(ms).join(', ')}; in one process ${inProcess.map(ms).join(', ')}`);
      const name = `${FLOW_DOCS.toLocaleString('en-US')} docs, peer A → peer B over the LAN`;
      return [
        {
          name: `${name} (raw: ws frames of 500, between the namespaces)`,
          kind: 'throughput',
          items: FLOW_DOCS,
          ours: median(ours),
          raw: median(bare),
          repetitions: ours.length,
        },
        {
          name: `${name} (baseline: same sync in one process over 127.0.0.1)`,
          kind: 'throughput',
          items: FLOW_DOCS,
          ours: median(ours),
          raw: median(inProcess),
          repetitions: ours.length,
        },
      ];
    } finally {
      await loopback?.close();
      await client?.stop();
      await server.stop();
    }
  });
}
