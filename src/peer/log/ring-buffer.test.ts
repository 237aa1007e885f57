import { describe, expect, it } from 'vitest';
import { RingBuffer } from './ring-buffer.ts';

const filled = (capacity: number, count: number): RingBuffer<number> => {
  const ring = new RingBuffer<number>(capacity);
  for (let i = 1; i <= count; i++) ring.push(i);
  return ring;
};

describe('RingBuffer', () => {
  it('keeps items oldest first while it has room, dropping none', () => {
    const ring = filled(4, 3);
    expect(ring.toArray()).toEqual([1, 2, 3]);
    expect(ring.size).toBe(3);
    expect(ring.dropped).toBe(0);
  });

  it('drops the oldest item for each push beyond its capacity and counts the drops', () => {
    const ring = filled(10, 25);
    expect(ring.toArray()).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    expect(ring.size).toBe(10);
    expect(ring.dropped).toBe(15);
  });

  it('leaves its items in place on toArray', () => {
    const ring = filled(3, 5);
    expect(ring.toArray()).toEqual([3, 4, 5]);
    expect(ring.toArray()).toEqual([3, 4, 5]);
    expect(ring.size).toBe(3);
    expect(ring.dropped).toBe(2);
  });

  it('takes every item with the count dropped since the previous take, and starts empty again', () => {
    const ring = filled(3, 5);
    expect(ring.take()).toEqual({ items: [3, 4, 5], dropped: 2 });
    expect(ring.size).toBe(0);
    expect(ring.dropped).toBe(0);
    expect(ring.take()).toEqual({ items: [], dropped: 0 });
  });

  it('keeps the order across wrap-arounds after a take', () => {
    const ring = filled(3, 2);
    expect(ring.take()).toEqual({ items: [1, 2], dropped: 0 });
    for (let i = 10; i <= 16; i++) ring.push(i);
    expect(ring.take()).toEqual({ items: [14, 15, 16], dropped: 4 });
    ring.push(20);
    expect(ring.toArray()).toEqual([20]);
  });

  it('works with a capacity of one, keeping only the newest item', () => {
    const ring = filled(1, 4);
    expect(ring.take()).toEqual({ items: [4], dropped: 3 });
  });

  it('refuses a capacity that is not a whole number of at least one', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new RingBuffer(capacity)).toThrow(RangeError);
    }
    expect(() => new RingBuffer(0)).toThrow('a ring buffer needs a capacity of at least 1, not 0');
  });
});
