/**
 * The budget of a small peer's subscriptions on the Big Peer (issue 18, part 1.2), over real
 * WebSockets on 127.0.0.1: matching a subscription's condition against the Big Peer's documents
 * yields to the event loop between documents, so that /_health and other sessions are served
 * meanwhile; past `subscriptionBudgetMs` in one update the session is closed with 1008 and a
 * reason that says the subscription is too expensive, and the Big Peer logs it.
 *
 * The costly condition is built from data: 200 documents each holding an array of 200 objects,
 * and 150 `array_contains` of an object none holds (about 15 ms a document, 3 s in all).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LogHub, Sync, onlinePlayground } from '../peer/host.ts';
import type { LogEntry } from '../shared/log.ts';
import { probe, slowest } from '../testing/big-peer/http-probe.ts';
import { PLAYGROUND_TOKEN, TEST_APP, startTestPeer, waitUntil, type TestPeer } from '../testing/big-peer/test-helpers.ts';

// 150 terms: a subscription's condition travels printed with every operation in parentheses,
// and a condition nests at most 200 deep.
const COSTLY = Array.from({ length: 150 }, (_, i) => `array_contains(items, {k: ${i}, v: 'none'})`).join(' OR ');

function costlyDocs(count: number): object[] {
  return Array.from({ length: count }, (_, i) => ({ _id: `d${i}`, n: i, items: Array.from({ length: 200 }, (_, j) => ({ k: j, v: `v${i}-${j}` })) }));
}

const closing: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

function smallPeer(bigPeerURL: string): { sync: Sync; logs: LogEntry[] } {
  const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
  const logs: LogEntry[] = [];
  hub.setCustomLogCallback((entry) => logs.push(entry));
  // A long reconnect delay: the test looks at one session, not at the peer coming back.
  const sync = new Sync({
    inMemory: true,
    logHub: hub,
    identity: onlinePlayground({ appID: TEST_APP, token: PLAYGROUND_TOKEN, bigPeerURL }),
    sync: { reconnect: { minDelayMs: 60_000, maxDelayMs: 60_000 } },
  });
  closing.push(() => sync.close());
  return { sync, logs };
}

describe("a small peer's subscription on the Big Peer", () => {
  let big: TestPeer;

  it('is closed with 1008 "subscription too expensive" past its budget, while /_health and other sessions are served', async () => {
    big = await startTestPeer({ subscriptionBudgetMs: 1_000 });
    closing.push(() => big.close());
    await big.peer.sync.store.execute('INSERT INTO docs DOCUMENTS (:docs)', { docs: costlyDocs(200) });

    const cheap = smallPeer(big.url);
    cheap.sync.store.registerSubscription('SELECT * FROM pings');
    await cheap.sync.startSync();
    await waitUntil('the cheap peer is connected', () => big.peer.sessions === 1 && big.logs.some((e) => e.event === 'replication.update-created'));

    const costly = smallPeer(big.url);
    costly.sync.store.registerSubscription(`SELECT * FROM docs WHERE ${COSTLY}`);
    const ended = waitUntil(
      'the costly session is closed',
      () => big.logs.some((e) => e.event === 'replication.session-ended' && e.fields?.code === 1008),
      20_000,
    );
    const started = performance.now();
    await costly.sync.startSync();
    // While the costly subscription is matched: a write reaches the other peer.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const pinged = performance.now();
    await big.peer.sync.store.execute("INSERT INTO pings DOCUMENTS ({_id: 'p1'})");
    const delivered = waitUntil(
      'the ping reaches the cheap peer',
      async () => (await cheap.sync.store.execute('SELECT * FROM pings')).items.length === 1,
      20_000,
    ).then(() => performance.now() - pinged);
    const probes = await probe(big.url, ['/_health'], ended);
    await ended;

    const closed = big.logs.find((e) => e.event === 'replication.session-ended' && e.fields?.code === 1008);
    expect(closed?.fields?.reason).toBe('subscription too expensive: matching its conditions on docs took more than 1000 ms');
    const warned = big.logs.find((e) => e.event === 'replication.subscription-too-expensive');
    expect(warned).toMatchObject({ level: 'WARN', fields: { collection: 'docs', budget_ms: 1_000 } });
    expect(performance.now() - started).toBeLessThan(1_000 + 3_000);
    expect(slowest(probes, '/_health')).toBeLessThan(1_000);
    expect(await delivered).toBeLessThan(1_000);
    // The costly peer got nothing of docs; the cheap one is still connected.
    expect((await costly.sync.store.execute('SELECT COUNT(*) AS n FROM docs')).items).toEqual([{ n: 0 }]);
    expect(big.peer.sessions).toBe(1);
  }, 30_000);
});
