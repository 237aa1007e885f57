/**
 * A peer logged in to a Big Peer: the Overview says who it is and that it syncs, the Mesh panel
 * shows the elected connection (over WebSocket, no peer-to-peer transport on), and the Logs panel
 * shows the spec's connection sequence (section 3.4) and, after a write, the write and
 * replication sequence (section 3.5, DEBUG lines).
 */
import { compositorLayers } from './compositor.ts';
import { withContract } from './contract.ts';
import { expect, openInspector, REPLICATION_TIMEOUT_MS, section, test, valueOf } from './fixtures.ts';
import { expectLogSequence, filterLogs, logRows } from './logs.ts';
import { createMesh, type BigPeerProcess, type InspectedPeer } from './processes.ts';

const mesh = createMesh('connect');
let bigPeer: BigPeerProcess;
let peer: InspectedPeer;
/** The peer's key and the Big Peer's, as the peer's own log lines say. */
let peerKey: string;
let bigPeerKey: string;

test.beforeAll(async () => {
  bigPeer = await mesh.startBigPeer();
  peer = await mesh.startPeer('a', { bigPeer, subscribe: ['SELECT * FROM orders', 'SELECT * FROM customers'], logLevel: 'DEBUG' });
  await expect.poll(() => /phy started; remote = ([A-Za-z0-9_-]+)/.exec(peer.stderr())?.[1], { timeout: REPLICATION_TIMEOUT_MS }).toBeTruthy();
  peerKey = /Store opened;.* peer_key = ([A-Za-z0-9_-]+)/.exec(peer.stderr())?.[1] as string;
  bigPeerKey = /phy started; remote = ([A-Za-z0-9_-]+)/.exec(peer.stderr())?.[1] as string;
  await withContract(peer, async (client) => {
    for (let i = 1; i <= 3; i++) await client.query('INSERT INTO orders DOCUMENTS (:order)', { order: { _id: `order-${i}`, total: i * 10, status: 'open' } });
    await client.query('INSERT INTO customers DOCUMENTS (:a), (:b)', { a: { _id: 'c1', name: 'Ada' }, b: { _id: 'c2', name: 'Grace' } });
  });
});
test.afterAll(() => mesh.stop());

test('the Overview shows the peer key, sync on, the Big Peer connected and the collection counts', async ({ page }) => {
  await openInspector(page, peer, 'Overview');
  const identity = section(page, 'Identity');
  await expect(valueOf(identity, 'Peer key')).toContainText(peerKey);
  await expect(valueOf(identity, 'App ID')).toHaveText('e2e-app');
  await expect(valueOf(identity, 'Store')).toContainText(peer.store);

  const sync = section(page, 'Sync');
  await expect(valueOf(sync, /^Sync$/)).toHaveText('On');
  await expect(valueOf(sync, /^Big Peer$/)).toContainText('Connected', { timeout: REPLICATION_TIMEOUT_MS });
  await expect(valueOf(sync, 'URL')).toContainText(bigPeer.url);
  await expect(valueOf(sync, 'Big Peer key')).toContainText(bigPeerKey.slice(0, 6));
  await expect(sync.getByRole('button', { name: 'Stop sync' })).toBeVisible();
  // Every commit is acknowledged by now; when it last synced is a time (UTC).
  await expect(valueOf(sync, 'Upload queue')).toContainText('empty: the Big Peer holds every commit', { timeout: REPLICATION_TIMEOUT_MS });
  await expect(valueOf(sync, 'Last synced with the Big Peer')).toContainText(/\d{2}:\d{2}:\d{2}/);

  await expect(section(page, 'Authentication').getByText('Authenticated', { exact: true })).toBeVisible();

  const collections = section(page, 'Collections').getByRole('table', { name: 'Collections' });
  await expect(collections.getByRole('row', { name: /orders/ })).toContainText('3');
  await expect(collections.getByRole('row', { name: /customers/ })).toContainText('2');
  await expect(page.getByRole('contentinfo', { name: 'Status' })).toContainText('Big Peer: connected');
});

test('the Logs panel shows the connection to the Big Peer in the order of the spec (3.4)', async ({ page }) => {
  await openInspector(page, peer, 'Logs');
  await filterLogs(page, '/^(Discovered|ConnectionEstablished|phy started|VirtConnElectedNewConn);/');
  await expect(logRows(page)).toHaveCount(4);
  await expect(logRows(page)).toHaveText([
    /INFO.*Discovered; peer = WebSocketClientPeer; connect_address = ws:\/\/127\.0\.0\.1:\d+\/_sync\/ws/,
    /INFO.*ConnectionEstablished; connection_type = WsClient; connection = (WsClient#\d+)/,
    new RegExp(`INFO.*phy started; remote = ${bigPeerKey}`),
    /INFO.*VirtConnElectedNewConn; remote = \S+; new_conn = WsClient#\d+; old_conn = none/,
  ]);
  // The elected connection is the WebSocket client connection that was established.
  const [established, elected] = await Promise.all([logRows(page).nth(1).innerText(), logRows(page).nth(3).innerText()]);
  expect(/new_conn = (WsClient#\d+)/.exec(elected)?.[1]).toBe(/connection = (WsClient#\d+)/.exec(established)?.[1]);
});

test('after a write, the Logs panel shows the write and replication sequence of the spec (3.5)', async ({ page }) => {
  await openInspector(page, peer, 'Logs');
  await expect(page.getByRole('combobox', { name: 'Peer level' })).toHaveValue('DEBUG');
  // Only what follows the write: forget what the list holds, then filter the sequence's lines.
  await page.getByRole('button', { name: 'Clear' }).click();
  await filterLogs(
    page,
    '/Write txn committed|Notifying a database change|Active subscriptions|Permissions;|Creating a sending update|update creation done|No next update chunk|No message to send/',
  );
  const commitId = await withContract(
    peer,
    async (client) => (await client.query('INSERT INTO audit DOCUMENTS (:entry)', { entry: { _id: 'a1', what: 'e2e' } })).commitId,
  );
  expect(commitId).not.toBeNull();
  await expectLogSequence(
    page,
    [
      new RegExp(`^Write txn committed; txn_id = ${commitId}; originator = User$`),
      new RegExp(`^Notifying a database change; transaction = ${commitId}$`),
      /^Active subscriptions; peer = local; subscriptions = .*"orders"/,
      /^Permissions; peer = local; permissions = /,
      new RegExp(`^Creating a sending update, sending_update_path = ${peerKey}/${bigPeerKey}/sending_update$`),
      new RegExp(`^update creation done; since_index = ${commitId}; new_update_created = true; num_docs = 1; elapsed = \\S+$`),
      /^No next update chunk to send - setting is_ready to false$/,
      /^No message to send$/,
    ],
    REPLICATION_TIMEOUT_MS,
  );
});

test('a focused Logs filter gives the rows below it no compositor layers of their own', async ({ page }) => {
  await openInspector(page, peer, 'Logs');
  await expect(logRows(page).first()).toBeVisible();
  // Every row matches, so every row has a highlight; the caret blinks in the focused field.
  await filterLogs(page, 'e');
  await page.getByRole('searchbox', { name: 'Filter log entries' }).focus();
  await expect.poll(async () => logRows(page).count()).toBeGreaterThan(5);
  const layers = await compositorLayers(page);
  // Rows painted after the caret's layer used to get one each ("Overlap"): 70 or more per frame to raster.
  const overlapping = layers.filter((l) => l.reasons.some((r) => /overlap/i.test(r)));
  expect(overlapping.length, `layers made for overlap, of ${layers.length}: ${overlapping.map((l) => l.size).join(', ')}`).toBe(0);
});

test('the Mesh panel shows the Big Peer connection elected', async ({ page }) => {
  await openInspector(page, peer, 'Mesh');
  // The graph: an edge from this peer to the Big Peer, elected.
  const graph = page.getByRole('group', { name: /^Mesh graph: this peer and 1 remote peer, 1 connection/ });
  await expect(graph).toBeVisible({ timeout: REPLICATION_TIMEOUT_MS });
  const edge = graph.getByRole('button', { name: new RegExp(`^WsClient#\\d+, dialed to Big Peer ${bigPeerKey}: elected, over WebSocket`, 'i') });
  await expect(edge).toHaveAttribute('data-state', 'elected');
  await expect(edge).toHaveAttribute('data-transport', 'WebSocket');

  // The lists: the Big Peer among the peers, its connection elected, with its address.
  await expect(page.getByRole('table', { name: 'Peers' }).getByRole('row', { name: new RegExp(bigPeerKey.slice(0, 8)) })).toContainText('Big Peer');
  const connection = page.getByRole('table', { name: 'Connections' }).getByRole('row', { name: /WsClient#\d+/ });
  await expect(connection).toHaveCount(1);
  await expect(connection).toContainText('elected');
  await expect(connection).toContainText(bigPeerKey.slice(0, 8));
  await expect(connection).toContainText('Big Peer');
  await expect(connection).toContainText(new URL(bigPeer.url).host);
  await expect(connection).toContainText('WsClient · dialed');
  await expect(connection).toContainText('WebSocket');

  // No peer-to-peer transport was asked for: the second tab says so, and how to turn LAN on.
  await page.getByRole('tab', { name: /Transports & LAN/ }).click();
  const lan = page.getByRole('tabpanel', { name: /^Transports & LAN/ });
  await expect(lan).toContainText('No peer-to-peer transport is on');
  await expect(lan).toContainText('LAN is off');
  await expect(page.getByRole('toolbar', { name: 'Graph controls' }).getByRole('group', { name: 'Peer-to-peer transports' })).toHaveCount(0);
});

test('while the Big Peer is down, the Mesh keeps its node, says since when, and when it is dialed again', async ({ page }) => {
  await openInspector(page, peer, 'Mesh');
  const peers = page.getByRole('table', { name: 'Peers' });
  await expect(peers.getByRole('row', { name: new RegExp(bigPeerKey.slice(0, 8)) })).toContainText('elected', { timeout: REPLICATION_TIMEOUT_MS });
  bigPeer = await mesh.restartBigPeer(bigPeer, async () => {
    const row = peers.getByRole('row', { name: new RegExp(bigPeerKey.slice(0, 8)) });
    await expect(row).toContainText(/down since \d{2}:\d{2}:\d{2}/, { timeout: REPLICATION_TIMEOUT_MS });
    await expect(row).toContainText(/retry in|retrying/);
    // The redials reach no peer, yet no stranger appears: this peer and the Big Peer, one node each.
    await expect(peers.getByRole('row')).toHaveCount(3);
    await expect(page.getByRole('group', { name: /^Mesh graph: this peer and 1 remote peer/ })).toBeVisible();
  });
  await expect(peers.getByRole('row', { name: new RegExp(bigPeerKey.slice(0, 8)) })).toContainText('elected', { timeout: REPLICATION_TIMEOUT_MS });
});
