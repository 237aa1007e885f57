import { describe, expect, it } from 'vitest';
import { BIG, LOCAL, SMALL_A, peer, snapshot } from '../../../../testing/renderer/mesh-snapshots.ts';
import { peerLabel, peerNames, withPeerNames } from './peer-names.ts';

const INDIRECT = 'indirect-key-0000000000000000000000000000000';

describe('the device names the inspector shows beside peer keys', () => {
  it('gathers the names of this peer, its remotes and the peers known through presence', () => {
    const names = peerNames(
      snapshot({
        local: { ...snapshot().local, deviceName: 'till-1' },
        peers: [peer(SMALL_A, { deviceName: 'till-3' }), peer(BIG, { role: 'big-peer' })],
        indirect: [
          {
            peerKey: INDIRECT,
            role: 'small-peer',
            deviceName: 'till-2',
            appMetadata: {},
            via: BIG,
            viaRole: 'big-peer',
            links: [],
            lastSeenAt: 9_000,
            online: true,
          },
        ],
      }),
    );
    expect([...names.entries()].sort()).toEqual(
      [
        [INDIRECT, 'till-2'],
        [LOCAL, 'till-1'],
        [SMALL_A, 'till-3'],
      ].sort(),
    );
    expect(peerNames(undefined).size).toBe(0);
  });

  it('names the keys inside a transaction hint, and keeps unknown keys as they are', () => {
    const names = new Map([[SMALL_A, 'till-3']]);
    expect(withPeerNames(`replication from ${SMALL_A}`, names)).toBe('replication from till-3 (small-a-…0000)');
    expect(withPeerNames(`replication from ${BIG}`, names)).toBe(`replication from ${BIG}`);
    expect(peerLabel(SMALL_A, names)).toBe('till-3 (small-a-…0000)');
  });
});
