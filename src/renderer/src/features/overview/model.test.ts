import { describe, expect, it } from 'vitest';
import type { CollectionCount } from '../../../../shared/inspector/overview.ts';
import { certificateState, collectionTable, peerNow } from './model.ts';

describe('the certificate countdown', () => {
  it('ticks from the peer’s clock, not the viewer’s', () => {
    expect(peerNow({ now: 1_000_000 }, 5_000, 8_000)).toBe(1_003_000);
    expect(peerNow({ now: 1_000_000 }, 5_000, 4_000)).toBe(1_000_000);
  });

  it('is fine far from expiry, a warning in the last ten minutes, an error once expired', () => {
    expect(certificateState(3_600_000, 0)).toMatchObject({ tone: 'ok', text: 'expires in 1 h 00 min 00 s' });
    expect(certificateState(9 * 60_000, 0)).toMatchObject({ tone: 'warn', text: 'expires in 9 min 00 s' });
    expect(certificateState(0, 65_000)).toMatchObject({ tone: 'danger', text: 'expired 1 min 05 s ago' });
    expect(certificateState(undefined, 0)).toMatchObject({ tone: 'neutral', text: 'no certificate' });
  });
});

describe('the collection table', () => {
  const collections: CollectionCount[] = [
    { name: 'orders', documents: 10, tombstones: 2, internal: false },
    { name: '__presence', documents: 3, tombstones: 0, internal: true },
    { name: 'flights', documents: 100, tombstones: 0, internal: false },
  ];

  it('hides internal collections unless asked, and counts them', () => {
    const table = collectionTable(collections, false);
    expect(table.rows.map((c) => c.name)).toEqual(['flights', 'orders']);
    expect(table).toMatchObject({ hiddenInternal: 1, documents: 110, tombstones: 2, largest: 100 });
  });

  it('lists internal collections after the others when shown', () => {
    expect(collectionTable(collections, true).rows.map((c) => c.name)).toEqual(['flights', 'orders', '__presence']);
  });
});
