import { describe, expect, it } from 'vitest';
import { DEFAULT_SIZE, MAX_LABELLED_NODES, bestState, curve, drawnConnections, layoutMesh, nodeIdOf } from './mesh-layout.ts';
import { BIG, LAN_URL, LOCAL, SMALL_A, SMALL_B, STRANGER, connection, lanSnapshot, refused, snapshot } from '../../../../testing/renderer/mesh-snapshots.ts';

describe('layoutMesh', () => {
  it('puts the local peer in the centre and the Big Peer straight above it', () => {
    const layout = layoutMesh(snapshot());
    const [local, first] = layout.nodes;
    expect(local).toMatchObject({ id: LOCAL, role: 'local', x: DEFAULT_SIZE.width / 2 });
    expect(first).toMatchObject({ id: BIG, role: 'big-peer', x: DEFAULT_SIZE.width / 2, labelSide: 'above' });
    expect(first!.y).toBeLessThan(local!.y);
  });

  it('places every node and its label inside the drawing, whatever the number of peers and the pane', () => {
    for (const size of [DEFAULT_SIZE, { width: 1600, height: 500 }, { width: 300, height: 200 }, { width: 700, height: 1200 }]) {
      for (const count of [1, 2, 5, 30]) {
        const peers = Array.from({ length: count }, (_, i) => ({
          peerKey: `peer-${i}`,
          role: 'small-peer' as const,
          appId: undefined,
          deviceName: undefined,
          appMetadata: undefined,
          presenceAt: undefined,
          auth: undefined,
          lastSyncedAt: null,
        }));
        const layout = layoutMesh(snapshot({ peers, connections: [] }), true, size);
        for (const node of layout.nodes) {
          expect(node.x - node.r - 50).toBeGreaterThanOrEqual(0);
          expect(node.x + node.r + 50).toBeLessThanOrEqual(layout.width);
          expect(node.y - node.r - 30).toBeGreaterThanOrEqual(0);
          expect(node.y + node.r + 30).toBeLessThanOrEqual(layout.height);
        }
        expect(layout.labelled).toBe(count <= MAX_LABELLED_NODES);
      }
    }
  });

  it('fills a wide pane with a wide ring, but not flatter than a limit', () => {
    const four = snapshot({
      peers: [
        ...snapshot().peers,
        {
          peerKey: 'p3',
          role: 'small-peer',
          appId: undefined,
          deviceName: undefined,
          appMetadata: undefined,
          presenceAt: undefined,
          auth: undefined,
          lastSyncedAt: null,
        },
        {
          peerKey: 'p4',
          role: 'small-peer',
          appId: undefined,
          deviceName: undefined,
          appMetadata: undefined,
          presenceAt: undefined,
          auth: undefined,
          lastSyncedAt: null,
        },
      ],
    });
    const wide = layoutMesh(four, true, { width: 1400, height: 600 });
    const xs = wide.nodes.map((n) => n.x);
    expect(Math.max(...xs) - Math.min(...xs)).toBeGreaterThan(600);
    const veryWide = layoutMesh(four, true, { width: 4000, height: 500 });
    const spread = veryWide.nodes.map((n) => n.x);
    expect(Math.max(...spread) - Math.min(...spread)).toBeLessThan(2 * 2.2 * (250 - 62) + 1);
  });

  it('keeps nodes where they were when a connection changes state', () => {
    const before = layoutMesh(snapshot());
    const after = layoutMesh(snapshot({ connections: [connection('WsClient#1', { state: 'closed', reason: 'socket closed', retryInMs: 4_000 })] }));
    expect(after.nodes.map((n) => [n.id, n.x, n.y])).toEqual(before.nodes.map((n) => [n.id, n.x, n.y]));
  });

  it('draws one edge per connection, curved apart when a peer has several', () => {
    const layout = layoutMesh(
      snapshot({
        connections: [connection('WsClient#1'), connection('WsServer#4', { direction: 'accepted', state: 'standby' })],
      }),
    );
    const toBig = layout.edges.filter((e) => e.nodeId === BIG);
    expect(toBig).toHaveLength(2);
    expect(toBig[0]!.path).not.toBe(toBig[1]!.path);
    expect(toBig.every((e) => e.path.includes('Q'))).toBe(true);
  });

  it('draws an endpoint whose peer is not known yet as a node of its own', () => {
    const layout = layoutMesh(snapshot({ peers: [], connections: [connection('WsClient#7', { state: 'connecting', remotePeerKey: undefined })] }));
    const unknown = layout.nodes.find((n) => n.role === 'unknown');
    expect(unknown).toMatchObject({ id: 'address:ws://127.0.0.1:4000/_sync/ws', address: 'ws://127.0.0.1:4000/_sync/ws', state: 'connecting' });
    expect(layout.edges[0]?.nodeId).toBe(unknown?.id);
  });

  it('orders remotes: Big Peers, then small peers as met, then unknown endpoints', () => {
    const layout = layoutMesh(
      snapshot({
        peers: [
          {
            peerKey: SMALL_B,
            role: 'small-peer',
            appId: undefined,
            deviceName: undefined,
            appMetadata: undefined,
            presenceAt: undefined,
            auth: undefined,
            lastSyncedAt: null,
          },
          {
            peerKey: SMALL_A,
            role: 'small-peer',
            appId: undefined,
            deviceName: undefined,
            appMetadata: undefined,
            presenceAt: undefined,
            auth: undefined,
            lastSyncedAt: null,
          },
          {
            peerKey: BIG,
            role: 'big-peer',
            appId: undefined,
            deviceName: undefined,
            appMetadata: undefined,
            presenceAt: undefined,
            auth: undefined,
            lastSyncedAt: null,
          },
        ],
        connections: [connection('WsClient#9', { state: 'connecting', remotePeerKey: undefined })],
      }),
    );
    expect(layout.nodes.map((n) => n.role)).toEqual(['local', 'big-peer', 'small-peer', 'small-peer', 'unknown']);
    expect(layout.nodes[2]?.id).toBe(SMALL_B);
  });

  it('tells each node the best state among its connections', () => {
    const layout = layoutMesh(
      snapshot({ connections: [connection('WsClient#1', { state: 'closed' }), connection('WsServer#3', { direction: 'accepted', state: 'elected' })] }),
    );
    expect(layout.nodes.find((n) => n.id === BIG)?.state).toBe('elected');
    expect(layout.nodes.find((n) => n.id === SMALL_A)?.state).toBe('none');
  });
});

describe('layoutMesh on a LAN', () => {
  it('draws a refused LAN address to the peer it advertised, a LAN peer with its refusal, after the small peers', () => {
    const layout = layoutMesh(lanSnapshot());
    expect(layout.nodes.map((n) => [n.role, n.peerKey])).toEqual([
      ['local', LOCAL],
      ['small-peer', SMALL_B],
      ['lan-peer', STRANGER],
    ]);
    expect(layout.nodes[2]).toMatchObject({ address: LAN_URL, auth: refused(), state: 'closed' });
    expect(layout.nodes[1]?.auth).toMatchObject({ state: 'verified', userID: 'bob' });
    expect(layout.edges.find((e) => e.connection.id === 'WsClient#9')?.nodeId).toBe(STRANGER);
  });

  it('draws the connections accepted from one host, none identified, as one endpoint: a refused peer redialing is not a new node each time', () => {
    const refusedFrom = (id: string, port: number, since: number) =>
      connection(id, {
        direction: 'accepted',
        transport: 'LAN',
        state: 'closed',
        since,
        remotePeerKey: undefined,
        address: `192.168.1.40:${port}`,
        refusal: { by: 'local', code: 4401, reason: 'bad certificate' },
      });
    const connections = [refusedFrom('WsServer#1', 50001, 1), refusedFrom('WsServer#2', 50002, 2), refusedFrom('WsServer#3', 50003, 3)];
    expect(new Set(connections.map(nodeIdOf))).toEqual(new Set(['address:192.168.1.40']));
    expect(nodeIdOf(connection('WsServer#4', { direction: 'accepted', remotePeerKey: undefined, address: '[::1]:5000' }))).toBe('address:[::1]');
    const layout = layoutMesh(snapshot({ peers: [], connections }));
    expect(layout.nodes.filter((n) => n.role === 'unknown')).toEqual([expect.objectContaining({ id: 'address:192.168.1.40', address: '192.168.1.40' })]);
    expect(layout.edges.map((e) => e.connection.id)).toEqual(['WsServer#3']);
    expect(layout.hiddenClosed).toBe(2);
  });

  it('labels a peer’s open edges, set apart, or when it has none its newest closed one', () => {
    const layout = layoutMesh(
      snapshot({
        peers: [],
        connections: [
          connection('WsServer#1', { direction: 'accepted', remotePeerKey: SMALL_A }),
          connection('WsClient#2', {
            state: 'closed',
            remotePeerKey: undefined,
            advertisedPeerKey: SMALL_A,
            transport: 'LAN',
            reason: 'not dialed while another connection to this peer is elected',
          }),
          connection('WsClient#3', { state: 'standby', remotePeerKey: SMALL_A }),
        ],
      }),
    );
    expect(Object.fromEntries(layout.edges.map((e) => [e.connection.id, e.labelled]))).toEqual({ 'WsServer#1': true, 'WsClient#2': false, 'WsClient#3': true });
    const [a, b] = layout.edges.filter((e) => e.labelled);
    expect(Math.hypot(a!.labelX - b!.labelX, a!.labelY - b!.labelY)).toBeGreaterThan(45);
    const closed = layoutMesh(
      snapshot({
        peers: [],
        connections: [
          connection('WsServer#1', { direction: 'accepted', state: 'closed', since: 5, remotePeerKey: SMALL_A }),
          connection('WsClient#2', { state: 'closed', since: 7, remotePeerKey: SMALL_A }),
        ],
      }),
    );
    expect(closed.edges.filter((e) => e.labelled).map((e) => e.connection.id)).toEqual(['WsClient#2']);
  });
});

describe('drawnConnections', () => {
  it('draws only the newest closed connection per peer and direction, and counts the rest', () => {
    const closed = [1, 2, 3].map((i) => connection(`WsServer#${i}`, { direction: 'accepted', state: 'closed', since: i * 100, remotePeerKey: SMALL_A }));
    const { drawn, hiddenClosed } = drawnConnections([connection('WsClient#9'), ...closed], true);
    expect(drawn.map((c) => c.id)).toEqual(['WsClient#9', 'WsServer#3']);
    expect(hiddenClosed).toBe(2);
  });

  it('leaves every closed connection out when asked', () => {
    const { drawn, hiddenClosed } = drawnConnections([connection('WsClient#1', { state: 'closed' })], false);
    expect(drawn).toEqual([]);
    expect(hiddenClosed).toBe(1);
  });
});

describe('bestState', () => {
  it('ranks elected over standby over connecting over closed', () => {
    expect(bestState(['closed', 'connecting'])).toBe('connecting');
    expect(bestState(['standby', 'elected'])).toBe('elected');
    expect(bestState([])).toBe('none');
  });
});

describe('curve', () => {
  it('runs straight between the rims when not offset', () => {
    expect(curve({ x: 0, y: 0, r: 10 }, { x: 100, y: 0, r: 10 }, 0)).toEqual({ path: 'M13 0L84 0', labelX: 48.5, labelY: 0 });
  });

  it('bends to the side by about the offset at its middle', () => {
    const { labelY } = curve({ x: 0, y: 0, r: 0 }, { x: 100, y: 0, r: 0 }, 20);
    expect(Math.abs(labelY)).toBeGreaterThan(18);
    expect(Math.abs(labelY)).toBeLessThan(23);
  });
});
