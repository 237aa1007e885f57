/**
 * The LAN transport over real mDNS and real sockets, between peer processes in network
 * namespaces this file creates and deletes itself (it needs root, as CI has): three peers on one
 * bridge discover each other and sync, and go on syncing with the Big Peer killed; a link cut
 * and restored loses nothing and converges, whether the cut is short (the connections survive)
 * or outlasts the keepalive (they end and are dialed again); a peer certified by another Big
 * Peer is refused; and `syncmesh peer --lan` syncs headless with a LAN neighbour.
 * Multicast never leaves the namespaces: the bridge lives in a namespace of its own, joined to
 * nothing. Where namespaces cannot be made, every test fails saying how to run them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../shared/log.ts';
import { LAN_SERVICE_TYPE } from './discovery.ts';
import { NODE, PROJECT_DIR, exitWithin, spawnInNamespace, type AgentProcess } from '../../testing/netns/agent-process.ts';
import { BigPeerProcess } from '../../testing/netns/big-peer-process.ts';
import { smallPeerSessions, startLanPeers, waitForMesh, type LanPeer } from '../../testing/netns/lan-peers.ts';
import { createTestNetwork, type TestNetwork } from '../../testing/netns/netns.ts';
import { sleep, until } from '../../testing/netns/wait.ts';

const APP_ID = 'lan-netns';
const TOKEN = 'lan-netns-playground-token';
const NOTES = 'SELECT * FROM notes';
/** Discovery, login and the first sessions, on 2 busy cores. */
const MESH_MS = 30_000;
const SYNC_MS = 20_000;

let network: TestNetwork | undefined;
let networkError: unknown;
/** The network, made once for the file; a failure to make it fails every test with its message. */
function testNetwork(): TestNetwork {
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- the error caught making the network, thrown again as it was
  if (networkError !== undefined) throw networkError;
  try {
    network ??= createTestNetwork(['a', 'b', 'c']);
  } catch (error) {
    networkError = error;
    throw error;
  }
  return network;
}

const agents: AgentProcess[] = [];
const bigPeers: BigPeerProcess[] = [];
const dirs: string[] = [];

/** Log events worth reading when a test failed: discovery, connections, sessions, refusals. */
const TOLD_ON_FAILURE = /^(peer|lan|replication\.(phy-started|connection-elected|session-ended))/;

afterEach(async (context) => {
  if (context.task.result?.state === 'fail') {
    for (const agent of agents) {
      const lines = await agent
        .logs()
        .catch(
          (error: unknown) =>
            [{ timestamp: '', level: 'ERROR', message: `no logs: ${String(error)}`, event: 'peer' }] as Pick<
              LogEntry,
              'timestamp' | 'level' | 'message' | 'event'
            >[],
        );
      const told = lines.filter((e) => TOLD_ON_FAILURE.test(e.event)).slice(-60);
      console.error(
        `--- agent ${agent.name} (${agent.namespace}), last ${told.length} connection log lines ---\n${told.map((e) => `[${e.level}] ${e.timestamp}: ${e.message}`).join('\n')}`,
      );
    }
  }
  await Promise.all(agents.splice(0).map((a) => a.stop()));
  await Promise.all(bigPeers.splice(0).map((b) => b.stop()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}, 30_000);

afterAll(() => network?.destroy());

let testNumber = 0;

async function bigPeer(net: TestNetwork, port: number): Promise<BigPeerProcess> {
  const peer = await BigPeerProcess.start({ namespace: net.bridgeNamespace, host: net.bridgeAddress, port, appID: APP_ID, playgroundToken: TOKEN });
  bigPeers.push(peer);
  return peer;
}

/** Peers in `roles`' namespaces logging in to `big` (by role), with a service type no other test uses. */
async function lanPeers(net: TestNetwork, roles: readonly string[], big: (role: string) => BigPeerProcess): Promise<LanPeer[]> {
  const serviceType = `syncmesh-t${process.pid}n${++testNumber}`;
  return startLanPeers(
    roles.map((role) => {
      const dir = mkdtempSync(join(tmpdir(), `lan-netns-${role}-`));
      dirs.push(dir);
      return {
        network: net,
        role,
        persistenceDirectory: dir,
        appID: APP_ID,
        playgroundToken: TOKEN,
        bigPeerURL: big(role).url,
        serviceType,
        subscriptions: [NOTES],
      };
    }),
    agents,
  );
}

const insert = (peer: LanPeer, doc: Record<string, unknown>): Promise<unknown> =>
  peer.agent.call('execute', { dql: 'INSERT INTO notes DOCUMENTS (:doc)', args: { doc } });

const idsOf = (items: readonly unknown[]): string[] => items.map((d) => String((d as { _id: unknown })._id)).sort();

/** Waits until every peer holds exactly `ids` in notes. */
async function untilEveryoneHas(peers: readonly LanPeer[], ids: readonly string[]): Promise<void> {
  await Promise.all(peers.map((p) => p.agent.waitRows(NOTES, ids.length, SYNC_MS)));
  for (const p of peers) expect(idsOf((await p.agent.call('execute', { dql: NOTES })).items), `the notes of ${p.role}`).toEqual([...ids].sort());
}

const messages = (entries: readonly LogEntry[], event: string): string[] => entries.filter((e) => e.event === event).map((e) => e.message);

/** Connections made, and connections closed as duplicates (4409), on all peers so far. */
async function connectionChurn(peers: readonly LanPeer[]): Promise<{ established: number; replaced: number }> {
  let established = 0;
  let replaced = 0;
  for (const p of peers) {
    const logs = await p.agent.logs();
    established += logs.filter((e) => e.event === 'peer.connection-established').length;
    replaced += logs.filter((e) => (e.event === 'peer.connection-ended' || e.event === 'replication.session-ended') && e.fields.code === 4409).length;
  }
  return { established, replaced };
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('LAN peers in network namespaces, over real mDNS', () => {
  it('discover each other, sync a document written on each to the other two, and keep syncing after the Big Peer is killed, over one connection per pair', async () => {
    const net = testNetwork();
    const big = await bigPeer(net, 7101);
    const peers = await lanPeers(net, ['a', 'b', 'c'], () => big);
    await waitForMesh(peers, MESH_MS);

    for (const p of peers) {
      const discovered = messages(await p.agent.logs(), 'peer.discovered');
      for (const other of peers.filter((o) => o !== p)) {
        const line = new RegExp(
          `^Discovered; peer = LanPeer; connect_address = ws://${escape(net.addressOf(other.role))}:\\d+/_sync/ws; remote = ${escape(other.peerKey)}$`,
        );
        expect(discovered, `${p.role} discovered ${other.role}`).toContainEqual(expect.stringMatching(line));
      }
      expect(
        discovered.every((m) => m.includes('connect_address = ws://10.')),
        `every address ${p.role} dials is on the test network`,
      ).toBe(true);
    }

    for (const p of peers) await insert(p, { _id: `first-${p.role}`, by: p.role });
    await untilEveryoneHas(peers, ['first-a', 'first-b', 'first-c']);

    big.kill();
    await until('every peer has lost its Big Peer session', 10_000, async () => {
      const all = await Promise.all(peers.map((p) => p.agent.call('sessions', {})));
      const left = all.flatMap((r, i) => r.sessions.filter((s) => s.role === 'big-peer').map(() => peers[i]?.role));
      return { done: left.length === 0, state: left };
    });
    for (const p of peers) await insert(p, { _id: `second-${p.role}`, by: p.role });
    await untilEveryoneHas(peers, ['first-a', 'first-b', 'first-c', 'second-a', 'second-b', 'second-c']);

    // One session per pair, over one connection that both ends agree on: one dialed it, the other accepted it.
    const sessions = await smallPeerSessions(peers);
    for (const p of peers) {
      const mine = sessions.get(p.role) ?? [];
      expect(mine.map((s) => s.remote).sort(), `${p.role}'s sessions`).toEqual(
        peers
          .filter((o) => o !== p)
          .map((o) => o.peerKey)
          .sort(),
      );
      for (const s of mine) {
        const other = peers.find((o) => o.peerKey === s.remote) as LanPeer;
        const theirs = (sessions.get(other.role) ?? []).find((t) => t.remote === p.peerKey);
        expect([s.connectionType, theirs?.connectionType].sort(), `the connection of ${p.role} and ${other.role}`).toEqual(['WsClient', 'WsServer']);
      }
    }
    // No duplicate connections and no 4409 redial loop: nothing new connects during a quiet spell.
    const before = await connectionChurn(peers);
    await sleep(5_000);
    expect(await connectionChurn(peers)).toEqual(before);
  }, 90_000);

  it('marks a LAN peer killed with SIGKILL offline: unreachable after failed redials, then gone once its record is stale', async () => {
    const net = testNetwork();
    const big = await bigPeer(net, 7106);
    const peers = await lanPeers(net, ['a', 'b'], () => big);
    const [a, b] = peers as [LanPeer, LanPeer];
    await waitForMesh(peers, MESH_MS);
    const seenByA = async () => (await a.agent.call('lanPeers', {})).lanPeers.find((p) => p.peerKey === b.peerKey);
    const before = await seenByA();
    expect(before?.present).toBe(true);
    expect(before?.unreachable).toBeUndefined();
    const killedAt = Date.now();
    await b.agent.kill(); // No goodbye: its mDNS record and its socket just stop.
    await until('a says b is unreachable', 30_000, async () => {
      const seen = await seenByA();
      return { done: seen?.unreachable !== undefined, state: seen };
    });
    const unreachable = (await seenByA())?.unreachable;
    expect(unreachable?.attempts).toBeGreaterThanOrEqual(3);
    expect(unreachable?.since).toBeGreaterThanOrEqual(killedAt);
    // Then mDNS says so too: no answer for 35 s.
    await until('a says b is gone', 60_000, async () => {
      const seen = await seenByA();
      return { done: seen?.present === false, state: seen };
    });
  }, 120_000);

  /**
   * Cuts c's cable, writes on both sides of the cut (one field edited on each side), checks that
   * the rest of the mesh goes on and that c hears nothing, then restores it: every peer ends with
   * every document, and the field with one value everywhere. `whileCut` decides how long the
   * cable stays out.
   */
  async function cutAndRestore(port: number, whileCut: (peers: readonly LanPeer[]) => Promise<void>): Promise<void> {
    const net = testNetwork();
    const big = await bigPeer(net, port);
    const peers = await lanPeers(net, ['a', 'b', 'c'], () => big);
    const [a, b, c] = peers as [LanPeer, LanPeer, LanPeer];
    await waitForMesh(peers, MESH_MS);
    big.kill(); // The LAN is the only way left.
    await insert(a, { _id: 'shared', v: 'before' });
    await untilEveryoneHas(peers, ['shared']);

    net.cut('c');
    await a.agent.call('execute', { dql: "UPDATE notes SET v = 'from-a' WHERE _id = 'shared'" });
    await c.agent.call('execute', { dql: "UPDATE notes SET v = 'from-c' WHERE _id = 'shared'" });
    await insert(a, { _id: 'cut-a' });
    await insert(b, { _id: 'cut-b' });
    await insert(c, { _id: 'cut-c' });
    // The rest of the mesh goes on; c hears nothing while its cable is out.
    await a.agent.waitRows("SELECT * FROM notes WHERE _id = 'cut-b'", 1, SYNC_MS);
    await b.agent.waitRows("SELECT * FROM notes WHERE _id = 'cut-a'", 1, SYNC_MS);
    await whileCut(peers);
    expect(idsOf((await c.agent.call('execute', { dql: NOTES })).items), 'what c holds while cut').toEqual(['cut-c', 'shared']);
    expect(idsOf((await a.agent.call('execute', { dql: NOTES })).items), 'what a holds while c is cut').toEqual(['cut-a', 'cut-b', 'shared']);

    net.restore('c');
    await untilEveryoneHas(peers, ['cut-a', 'cut-b', 'cut-c', 'shared']);
    let values: unknown[] = [];
    await until('one value of shared.v on every peer', SYNC_MS, async () => {
      values = await Promise.all(
        peers.map(async (p) => ((await p.agent.call('execute', { dql: "SELECT * FROM notes WHERE _id = 'shared'" })).items[0] as { v?: unknown })?.v),
      );
      return { done: new Set(values).size === 1, state: values };
    });
    expect(['from-a', 'from-c']).toContain(values[0]);
    await waitForMesh(peers, MESH_MS);
  }

  it('loses nothing when a peer’s link is cut for a few seconds and restored while both sides write, and converges concurrent edits of one field to one value everywhere', async () => {
    await cutAndRestore(7102, () => sleep(3_000));
  }, 90_000);

  it('loses nothing when a cut outlasts the keepalive, so that the sessions end and are dialed again once the link is back, and converges concurrent edits', async () => {
    await cutAndRestore(7103, async (peers) => {
      // Each side's keepalive (a ping every 15 s, cut after two intervals with nothing heard) ends its sessions across the cut.
      await until(
        'the sessions across the cut have ended on both sides',
        75_000,
        async () => {
          const sessions = await smallPeerSessions(peers);
          const c = peers[2] as LanPeer;
          const across = [...sessions].flatMap(([role, list]) =>
            list.filter((s) => role === 'c' || s.remote === c.peerKey).map((s) => `${role}→${s.remote.slice(0, 6)}`),
          );
          return { done: across.length === 0, state: across };
        },
        500,
      );
      // c answers no query across the cut: the others count it gone (no 8-hour mDNS TTL), and stop dialing it.
      const [a, , c] = peers as [LanPeer, LanPeer, LanPeer];
      await until(
        'a counts c gone from the LAN',
        60_000,
        async () => {
          const { lanPeers } = await a.agent.call('lanPeers', {});
          const seen = lanPeers.find((p) => p.peerKey === c.peerKey);
          return { done: seen?.present === false, state: seen };
        },
        500,
      );
    });
  }, 240_000);

  it('refuses a peer whose certificate another Big Peer of the same app issued (UnknownIssuer): it gets no session with the others and no document crosses', async () => {
    const net = testNetwork();
    const trusted = await bigPeer(net, 7104);
    const other = await bigPeer(net, 7105);
    const peers = await lanPeers(net, ['a', 'b', 'c'], (role) => (role === 'c' ? other : trusted));
    const [a, b, c] = peers as [LanPeer, LanPeer, LanPeer];
    await waitForMesh([a, b], MESH_MS);
    await insert(a, { _id: 'from-a' });
    await insert(c, { _id: 'from-c' });
    await b.agent.waitRows("SELECT * FROM notes WHERE _id = 'from-a'", 1, SYNC_MS);

    // Each side refuses the other's certificate, and hears that the other refused its own.
    const refusals = async (peer: LanPeer): Promise<string[]> => messages(await peer.agent.logs(), 'peer.session-refused');
    await until('c and both of its neighbours have refused and been refused for UnknownIssuer', SYNC_MS, async () => {
      const seen = await Promise.all(peers.map(refusals));
      const state = seen.map((lines, i) => `${peers[i]?.role}: ${lines.filter((l) => l.includes('UnknownIssuer')).length}`);
      const done = seen.every(
        (lines) =>
          lines.some((l) => /^Session refused; .*code = 4401; reason = .*UnknownIssuer/.test(l)) &&
          lines.some((l) => /^Session refused by the remote peer; .*code = 4401; reason = .*UnknownIssuer/.test(l)),
      );
      return { done, state };
    });

    const sessions = await smallPeerSessions(peers);
    expect(
      (sessions.get('c') ?? []).map((s) => s.remote),
      'c’s sessions with small peers',
    ).toEqual([]);
    expect((sessions.get('a') ?? []).map((s) => s.remote)).toEqual([b.peerKey]);
    expect((sessions.get('b') ?? []).map((s) => s.remote)).toEqual([a.peerKey]);
    for (const p of peers) {
      const across = p === c ? [a.peerKey, b.peerKey] : [c.peerKey];
      const started = messages(await p.agent.logs(), 'replication.phy-started').filter((m) => across.some((key) => m.includes(key)));
      expect(started, `sessions ${p.role} ever started across the two issuers`).toEqual([]);
    }
    expect(idsOf((await c.agent.call('execute', { dql: NOTES })).items)).toEqual(['from-c']);
    expect(idsOf((await a.agent.call('execute', { dql: NOTES })).items)).toEqual(['from-a']);
    expect(idsOf((await b.agent.call('execute', { dql: NOTES })).items)).toEqual(['from-a']);
  }, 90_000);

  it('syncs headless with `syncmesh peer --lan`: with the Big Peer killed, a statement piped into the command reaches its LAN neighbour, and the neighbour’s write comes back', async () => {
    const net = testNetwork();
    const big = await bigPeer(net, 7105);
    // The command advertises the product's own service type, as a user's peer would.
    const dir = mkdtempSync(join(tmpdir(), 'lan-netns-a-'));
    dirs.push(dir);
    const [a] = await startLanPeers(
      [
        {
          network: net,
          role: 'a',
          persistenceDirectory: dir,
          appID: APP_ID,
          playgroundToken: TOKEN,
          bigPeerURL: big.url,
          serviceType: LAN_SERVICE_TYPE,
          subscriptions: [NOTES],
        },
      ],
      agents,
    );
    if (a === undefined) throw new Error('no agent');
    const store = mkdtempSync(join(tmpdir(), 'lan-netns-cli-'));
    dirs.push(store);
    const cli = spawnInNamespace(net.namespaceOf('b'), [
      NODE,
      `${PROJECT_DIR}bin/syncmesh.js`,
      'peer',
      '--store',
      store,
      '--app-id',
      APP_ID,
      '--playground-token',
      TOKEN,
      '--big-peer',
      big.url,
      '--subscribe',
      NOTES,
      '--lan',
      '--lan-interface',
      net.addressOf('b'),
      // The Big Peer is killed below: at the end of its input the command waits this long for it.
      '--drain-timeout',
      '1s',
    ]);
    let answers = '';
    cli.child.stdout.setEncoding('utf8').on('data', (chunk: string) => (answers += chunk));
    try {
      cli.child.stdin.write(`INSERT INTO notes DOCUMENTS (:d)\t${JSON.stringify({ d: { _id: 'from-cli' } })}\n`);
      await a.agent.waitRows(NOTES, 1, SYNC_MS);
      // From here on the LAN is the only way between them.
      big.kill();
      await insert(a, { _id: 'from-agent' });
      cli.child.stdin.write(`INSERT INTO notes DOCUMENTS (:d)\t${JSON.stringify({ d: { _id: 'from-cli-offline' } })}\n`);
      await a.agent.waitRows(NOTES, 3, SYNC_MS);
      await until('the command holds every note', SYNC_MS, async () => {
        const before = answers.length;
        cli.child.stdin.write(`${NOTES}\n`);
        await sleep(300);
        const last = answers.slice(before).trim().split('\n').pop() ?? '';
        const ids = last.startsWith('{"items"') ? idsOf((JSON.parse(last) as { items: unknown[] }).items) : [];
        return { done: ids.length === 3, state: { ids, stderr: cli.stderrTail().slice(-400) } };
      });
      expect(cli.stderrTail()).toMatch(/Discovered; peer = LanPeer; connect_address = ws:\/\/10\./);
      cli.child.stdin.end();
      // What it wrote while the Big Peer was gone reached its neighbour, not the Big Peer: it says so and exits 1.
      expect(await exitWithin(cli, 10_000)).toBe(1);
      expect(cli.stderrTail()).toMatch(
        /Deallocating\n\{"error":\{"code":"cli\/drain-timeout","message":"the Big Peer did not acknowledge \d+ commits? of this store within 1s .*; no session with the Big Peer is open\./,
      );
    } finally {
      if (!cli.hasExited()) cli.child.kill('SIGKILL');
    }
  }, 90_000);
});
