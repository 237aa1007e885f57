import { describe, expect, it } from 'vitest';
import { SharedUpdates } from './shared-updates.ts';
import type { BuiltUpdate } from './update-builder.ts';

function update(docs: number): BuiltUpdate {
  const chunks = docs === 0 ? [] : [{ docsJson: `[${Array.from({ length: docs }, (_, i) => `{"id":${i}}`).join(',')}]`, docs, notices: [] }];
  return { chunks, numDocs: docs, sample: [], progress: { everything: 7 }, tooLarge: [], unreadable: [], windows: new Map() };
}

/** A builder that counts its runs, and a framer that counts its frames. */
function counted(docs = 1): { builds: number; framed: number; build: () => Promise<BuiltUpdate>; frame: (b: BuiltUpdate, n: number) => string[] } {
  const c = {
    builds: 0,
    framed: 0,
    build: async () => {
      c.builds++;
      return update(docs);
    },
    frame: (b: BuiltUpdate, n: number) => b.chunks.map((chunk) => (c.framed++, `{"update":${n},"docs":${chunk.docsJson}}`)),
  };
  return c;
}

describe('SharedUpdates', () => {
  it('builds and frames once for the sessions of a shape that join in one turn, numbered past the highest last number', async () => {
    const shared = new SharedUpdates();
    const c = counted();
    const made = await Promise.all([3, 9, 5].map((last) => shared.join('shape', 7, last, c.build, c.frame)));
    expect(c.builds).toBe(1);
    expect(c.framed).toBe(1);
    expect(made.map((m) => m.number)).toEqual([10, 10, 10]);
    expect(new Set(made.map((m) => m.frames[0]?.bytes)).size).toBe(1);
    expect(made[0]?.frames[0]?.bytes.toString('utf8')).toBe('{"update":10,"docs":[{"id":0}]}');
    expect(shared.counts).toEqual({ built: 1, served: 3 });
  });

  it('builds apart for two shapes', async () => {
    const shared = new SharedUpdates();
    const c = counted();
    await Promise.all([shared.join('a', 7, 0, c.build, c.frame), shared.join('b', 7, 0, c.build, c.frame), shared.join('a', 7, 0, c.build, c.frame)]);
    expect(c.builds).toBe(2);
    expect(shared.counts).toEqual({ built: 2, served: 3 });
  });

  it('gives a session that comes later the update kept for the same snapshot, unless it already sent a higher number', async () => {
    const shared = new SharedUpdates();
    const c = counted();
    const first = await shared.join('shape', 7, 4, c.build, c.frame);
    const later = await shared.join('shape', 7, 2, c.build, c.frame);
    expect(later).toBe(first);
    expect(c.builds).toBe(1);
    const ahead = await shared.join('shape', 7, 5, c.build, c.frame);
    expect(ahead.number).toBe(6);
    expect(c.builds).toBe(2);
  });

  it('reads afresh once the store moved to a newer snapshot', async () => {
    const shared = new SharedUpdates();
    const c = counted();
    await shared.join('shape@7', 7, 0, c.build, c.frame);
    await shared.join('shape@8', 8, 1, c.build, c.frame);
    await shared.join('shape@7', 7, 0, c.build, c.frame);
    expect(c.builds).toBe(3);
  });

  it('fails every session that joined when the build fails, and keeps nothing of it', async () => {
    const shared = new SharedUpdates();
    let runs = 0;
    const failing = async (): Promise<BuiltUpdate> => {
      runs++;
      throw new Error('subscription too expensive');
    };
    const joined = [shared.join('shape', 7, 0, failing, () => []), shared.join('shape', 7, 0, failing, () => [])];
    for (const result of await Promise.allSettled(joined))
      expect(result).toMatchObject({ status: 'rejected', reason: { message: 'subscription too expensive' } });
    expect(runs).toBe(1);
    const c = counted();
    expect((await shared.join('shape', 7, 0, c.build, c.frame)).number).toBe(1);
    expect(c.builds).toBe(1);
  });

  it('frames nothing for an update with nothing to send', async () => {
    const shared = new SharedUpdates();
    const c = counted(0);
    const made = await shared.join('shape', 7, 0, c.build, c.frame);
    expect(made.frames).toEqual([]);
    expect(c.framed).toBe(0);
  });
});
