/**
 * The operations surface over real sockets on 127.0.0.1: liveness and readiness (503 while
 * draining or when the store does not answer), Prometheus metrics that move with replication,
 * HTTP requests and writes waiting for the write slot, and the drain: sessions closed with 1001
 * so that small peers reconnect, through a load balancer, to another node.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LOG_EVENTS, type LogEntry } from '../shared/log.ts';
import { LogHub, ManualTimers, Sync, onlinePlayground } from '../peer/host.ts';
import { BigPeer, DRAIN_CLOSE_REASON } from './big-peer.ts';
import { bigPeerConfig } from './config.ts';
import { parsePrometheusText, sampleValue, type Exposition } from '../testing/big-peer/prometheus-text.ts';
import { TcpBalancer } from '../testing/big-peer/tcp-balancer.ts';
import { call, PLAYGROUND_TOKEN, post, startTestPeer, TEST_APP, TEST_KEY, waitUntil, type TestPeer } from '../testing/big-peer/test-helpers.ts';

const WAIT_MS = 10_000;

function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: not within ${WAIT_MS} ms`)), WAIT_MS);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<Exposition> {
  const res = await call(`${url}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(res.text);
}

/** A WebSocket session that got its challenge: open, waiting for its announcement. */
async function openSession(wsUrl: string): Promise<WebSocket> {
  const ws = new WebSocket(wsUrl);
  ws.on('error', () => undefined);
  await bounded(new Promise((resolve) => ws.once('message', resolve)), 'the challenge');
  return ws;
}

const closeOf = (ws: WebSocket): Promise<{ code: number; reason: string }> =>
  bounded(new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))), 'close');

/** Does a new WebSocket to `wsUrl` fail (connection refused, or an upgrade answered with an error)? */
const upgradeFails = (wsUrl: string): Promise<boolean> =>
  bounded(
    new Promise((resolve) => {
      const ws = new WebSocket(wsUrl);
      ws.on('open', () => {
        ws.terminate();
        resolve(false);
      });
      ws.on('error', () => resolve(true));
    }),
    'the upgrade',
  );

const count = async (sync: Sync, collection: string): Promise<number> =>
  Number((await sync.store.execute(`SELECT COUNT(*) AS n FROM ${collection}`)).items[0]?.n);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function testPeer(...args: Parameters<typeof startTestPeer>): Promise<TestPeer> {
  const t = await startTestPeer(...args);
  cleanups.push(() => t.close());
  return t;
}

function smallPeer(bigPeerURL: string): { sync: Sync; logs: LogEntry[] } {
  const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
  const logs: LogEntry[] = [];
  hub.setCustomLogCallback((entry) => logs.push(entry));
  const sync = new Sync({
    inMemory: true,
    logHub: hub,
    identity: onlinePlayground({ appID: TEST_APP, token: PLAYGROUND_TOKEN, bigPeerURL }),
    sync: { reconnect: { minDelayMs: 20, maxDelayMs: 200 } },
  });
  cleanups.push(() => sync.close());
  return { sync, logs };
}

describe('liveness and readiness', () => {
  it('answers /_health 200 ok and /_ready 200 ready, to GET and HEAD, without a credential', async () => {
    const t = await testPeer();
    const health = await call(`${t.url}/_health`);
    expect([health.status, health.json]).toEqual([200, { status: 'ok' }]);
    expect(health.headers['cache-control']).toBe('no-store');
    const ready = await call(`${t.url}/_ready`);
    expect([ready.status, ready.json]).toEqual([200, { status: 'ready' }]);
    const head = await call(`${t.url}/_ready`, { method: 'HEAD' });
    expect([head.status, head.text]).toEqual([200, '']);
    const post = await call(`${t.url}/_health`, { method: 'POST', body: {} });
    expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD']);
  });

  it('turns /_ready 503 draining at once on a drain, while /_health stays 200', async () => {
    const timers = new ManualTimers();
    const t = await testPeer({ drainDelayMs: 1000 }, timers);
    expect((await call(`${t.url}/_ready`)).status).toBe(200);
    const drained = t.peer.drain();
    const ready = await call(`${t.url}/_ready`);
    expect(ready.status).toBe(503);
    expect(ready.json).toEqual({ status: 'draining', reason: expect.stringMatching(/draining/) });
    expect(ready.headers.connection).toBe('close');
    expect((await call(`${t.url}/_health`)).json).toEqual({ status: 'ok' });
    timers.advance(1000);
    await bounded(drained, 'the drain');
  });

  it('turns /_ready 503 unavailable when the store read throws, naming only its error code, and logs it once', async () => {
    const t = await testPeer();
    // The store goes away under a Big Peer that still serves (as a database server would).
    t.peer.sync.store.close();
    const first = await call(`${t.url}/_ready`);
    expect([first.status, first.json]).toEqual([503, { status: 'unavailable', reason: 'the store does not answer a read (store/closed)' }]);
    expect((await call(`${t.url}/_ready`)).status).toBe(503);
    expect((await call(`${t.url}/_health`)).status).toBe(200);
    const logged = t.logs.filter((e) => e.event === LOG_EVENTS.bigPeerUnavailable);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.level).toBe('WARN');
    expect(logged[0]?.fields.error).toMatch(/closed/);
  });
});

describe('the metrics', () => {
  it('parse as Prometheus text with the syncmesh_ metrics, and count HTTP requests by route, never by raw URL', async () => {
    const t = await testPeer();
    const before = await scrape(t.url);
    for (const name of [
      'syncmesh_websocket_sessions',
      'syncmesh_connected_peers',
      'syncmesh_websocket_sessions_opened_total',
      'syncmesh_replication_sent_documents_total',
      'syncmesh_replication_received_documents_total',
      'syncmesh_replication_sent_bytes_total',
      'syncmesh_replication_received_bytes_total',
      'syncmesh_store_blocked_writes_total',
      'syncmesh_store_writes_waiting',
      'syncmesh_store_last_txn_id',
      'syncmesh_draining',
      'syncmesh_http_requests_in_flight',
    ]) {
      expect(
        before.samples.some((s) => s.name === name),
        name,
      ).toBe(true);
    }
    expect(before.types.get('syncmesh_http_request_duration_seconds')).toBe('histogram');
    // Process metrics only where asked (the CLI): tests run many Big Peers in one process.
    expect(before.samples.some((s) => s.name.startsWith('process_'))).toBe(false);

    expect((await post(`${t.url}/api/v4/store/execute`, { statement: "INSERT INTO orders DOCUMENTS ({ _id: 'o1' })" })).status).toBe(200);
    expect((await call(`${t.url}/no/such/path/secret-123`)).status).toBe(404);
    const after = await scrape(t.url);
    const requests = (labels: Record<string, string>) => sampleValue(after, 'syncmesh_http_request_duration_seconds_count', labels);
    expect(requests({ method: 'POST', route: '/api/v4/store/execute', status_class: '2xx' })).toBe(1);
    expect(requests({ method: 'GET', route: 'unmatched', status_class: '4xx' })).toBe(1);
    expect(requests({ method: 'GET', route: '/metrics', status_class: '2xx' })).toBe(1);
    expect(after.samples.some((s) => Object.values(s.labels).some((v) => v.includes('secret-123')))).toBe(false);
    expect(sampleValue(after, 'syncmesh_store_last_txn_id')).toBe(t.peer.sync.store.lastTxnId);
  });

  it('count sessions, documents and bytes after a small peer replicates a few documents each way', async () => {
    const t = await testPeer();
    const { sync } = smallPeer(t.url);
    sync.store.registerSubscription('SELECT * FROM news');
    await sync.startSync();
    await waitUntil('the session is accepted', () => t.peer.sessions === 1);
    await sync.store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'a' }), ({ _id: 'b' }), ({ _id: 'c' })");
    await waitUntil('the orders reach the Big Peer', async () => (await count(t.peer.sync, 'orders')) === 3);
    await t.peer.sync.store.execute("INSERT INTO news DOCUMENTS ({ _id: 'n1' }), ({ _id: 'n2' })");
    await waitUntil('the news reach the small peer', async () => (await count(sync, 'news')) === 2);

    const m = await scrape(t.url);
    expect(sampleValue(m, 'syncmesh_websocket_sessions')).toBe(1);
    expect(sampleValue(m, 'syncmesh_connected_peers')).toBe(1);
    expect(sampleValue(m, 'syncmesh_websocket_sessions_opened_total')).toBe(1);
    expect(sampleValue(m, 'syncmesh_replication_received_documents_total')).toBe(3);
    expect(sampleValue(m, 'syncmesh_replication_sent_documents_total')).toBe(2);
    expect(sampleValue(m, 'syncmesh_replication_sent_bytes_total')).toBeGreaterThan(0);
    expect(sampleValue(m, 'syncmesh_replication_received_bytes_total')).toBeGreaterThan(0);

    await sync.stopSync();
    await waitUntil('the session ends', () => t.peer.sessions === 0);
    const ended = await scrape(t.url);
    expect(sampleValue(ended, 'syncmesh_connected_peers')).toBe(0);
    expect(ended.samples.filter((s) => s.name === 'syncmesh_websocket_sessions_closed_total').reduce((n, s) => n + s.value, 0)).toBe(1);
  });

  it('count a write that waited for the write slot, and show it waiting meanwhile', async () => {
    const t = await testPeer();
    let release = (): void => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holder = t.peer.sync.store.transaction(async (tx) => {
      await tx.execute('INSERT INTO a DOCUMENTS ({ _id: 1 })');
      await gate;
    });
    const waiting = post(`${t.url}/api/v4/store/execute`, { statement: 'INSERT INTO b DOCUMENTS ({ _id: 2 })' });
    await waitUntil('the HTTP write waits', () => t.peer.sync.store.writeSlot.waiting === 1);
    const during = await scrape(t.url);
    expect(sampleValue(during, 'syncmesh_store_writes_waiting')).toBe(1);
    expect(sampleValue(during, 'syncmesh_store_blocked_writes_total', { originator: 'User' })).toBe(0);
    release();
    await holder;
    expect((await waiting).status).toBe(200);
    const after = await scrape(t.url);
    expect(sampleValue(after, 'syncmesh_store_writes_waiting')).toBe(0);
    expect(sampleValue(after, 'syncmesh_store_blocked_writes_total', { originator: 'User' })).toBe(1);
    expect(sampleValue(after, 'syncmesh_store_blocked_write_wait_seconds_total', { originator: 'User' })).toBeGreaterThanOrEqual(0);
  });

  it('need Authorization: Bearer <metricsToken> once a token is configured, and health and readiness still need none', async () => {
    const token = 'metrics-token-0123456789';
    const t = await testPeer({ metricsToken: token });
    const bare = await call(`${t.url}/metrics`);
    expect([bare.status, bare.json.error.code, bare.headers['www-authenticate']]).toEqual([401, 'http/unauthorized', 'Bearer realm="metrics"']);
    expect((await call(`${t.url}/metrics`, { headers: { Authorization: `Bearer ${TEST_KEY}` } })).status).toBe(401);
    await scrape(t.url, { Authorization: `Bearer ${token}` });
    expect((await call(`${t.url}/_health`)).status).toBe(200);
    expect((await call(`${t.url}/_ready`)).status).toBe(200);
  });
});

describe('draining a Big Peer', () => {
  it('keeps serving through the drain delay, then closes sessions with 1001 and refuses new upgrades', async () => {
    const timers = new ManualTimers();
    const t = await testPeer({ drainDelayMs: 5000 }, timers);
    await call(`${t.url}/_ready`); // A load balancer watches this node.
    const wsUrl = t.peer.wsUrl;
    const ws = await openSession(wsUrl);
    const closed = closeOf(ws);
    const drained = t.peer.drain();
    expect(t.peer.isDraining).toBe(true);
    // Within the delay the node still serves: a load balancer may still send it work.
    const late = await openSession(wsUrl);
    const lateClosed = closeOf(late);
    expect((await post(`${t.url}/api/v4/store/execute`, { statement: 'SELECT * FROM orders' })).status).toBe(200);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    timers.advance(5000);
    expect(await closed).toEqual({ code: 1001, reason: DRAIN_CLOSE_REASON });
    expect(await lateClosed).toEqual({ code: 1001, reason: DRAIN_CLOSE_REASON });
    expect(await upgradeFails(wsUrl)).toBe(true);
    await bounded(drained, 'the drain');
    const events = t.logs.map((e) => e.event);
    expect(events.indexOf(LOG_EVENTS.bigPeerDraining)).toBeLessThan(events.indexOf(LOG_EVENTS.bigPeerDrained));
    expect(t.logs.find((e) => e.event === LOG_EVENTS.bigPeerDraining)?.fields).toMatchObject({ delay_ms: 5000, ready_asked: true, sessions: 1 });
    expect(t.logs.find((e) => e.event === LOG_EVENTS.bigPeerDrained)?.fields).toMatchObject({ sessions_closed: 2, cut_short: false });
  });

  it('skips the drain delay when nothing ever asked /_ready (no load balancer to tell)', async () => {
    const timers = new ManualTimers();
    const t = await testPeer({ drainDelayMs: 60_000 }, timers);
    const ws = await openSession(t.peer.wsUrl);
    const closed = closeOf(ws);
    await bounded(t.peer.drain(), 'the drain');
    expect(await closed).toEqual({ code: 1001, reason: DRAIN_CLOSE_REASON });
    expect(t.logs.find((e) => e.event === LOG_EVENTS.bigPeerDraining)?.fields).toMatchObject({ delay_ms: 0, ready_asked: false });
  });

  it('is cut short: no more delay, sessions cut at once, the store still closed', async () => {
    const timers = new ManualTimers();
    const t = await testPeer({ drainDelayMs: 60_000 }, timers);
    await call(`${t.url}/_ready`);
    const ws = await openSession(t.peer.wsUrl);
    const closed = closeOf(ws);
    const drained = t.peer.drain('SIGTERM');
    await t.peer.cutShort();
    await bounded(drained, 'the drain');
    expect((await closed).code).toBeGreaterThanOrEqual(1001);
    expect(t.peer.sync.isClosed).toBe(true);
    expect(t.logs.find((e) => e.event === LOG_EVENTS.bigPeerDrained)?.fields).toMatchObject({ cut_short: true });
  });

  it('sends a small peer, through a load balancer, to another node that serves the same data', async () => {
    // Two Big Peers on one store: the nodes of one deployment, stateless in front of their data.
    const hub = new LogHub({ minimumLogLevel: 'INFO' });
    hub.enabled = false;
    const core = new Sync({ inMemory: true, logHub: hub });
    cleanups.push(() => core.close());
    const start = async (): Promise<BigPeer> => {
      const peer = await BigPeer.start(bigPeerConfig({ appID: TEST_APP, playgroundToken: PLAYGROUND_TOKEN, drainDelayMs: 300 }), { sync: core, logHub: hub });
      cleanups.push(() => peer.close());
      return peer;
    };
    const nodes = [await start(), await start()];
    const balancer = await TcpBalancer.listen({
      backends: nodes.map((n) => ({ host: '127.0.0.1', port: n.port })),
      healthCheck: { path: '/_ready', everyMs: 50 },
    });
    cleanups.push(() => balancer.close());
    await waitUntil('the balancer sees both nodes ready', () => balancer.ready().length === 2);

    const { sync, logs } = smallPeer(balancer.url);
    sync.store.registerSubscription('SELECT * FROM orders');
    await sync.startSync();
    await waitUntil('the small peer has a session with a node', () => nodes.some((n) => n.sessions === 1));
    // The node it landed on (the balancer takes turns) is drained; the other takes over.
    const a = nodes.find((n) => n.sessions === 1) as BigPeer;
    const b = nodes.find((n) => n !== a) as BigPeer;
    await sync.store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'before' })");
    await waitUntil('the order reaches the store', async () => (await count(core, 'orders')) === 1);

    await bounded(a.drain(), 'the drain of node a');
    const ended = logs.find((e) => e.event === LOG_EVENTS.connectionEnded);
    expect(ended?.fields).toMatchObject({ code: 1001, reason: DRAIN_CLOSE_REASON });
    await waitUntil('the small peer has a session with node b', () => b.sessions === 1);
    expect(balancer.ready()).toEqual([b.url]);
    await sync.store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'after' })");
    await waitUntil('the order reaches the store through node b', async () => (await count(core, 'orders')) === 2);
    await core.store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'from-the-store' })");
    await waitUntil('the store sends to the small peer through node b', async () => (await count(sync, 'orders')) === 3);
  });
});
