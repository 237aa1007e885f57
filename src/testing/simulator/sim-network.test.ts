/**
 * The simulated network: frames of one connection and direction keep their order whatever the
 * jitter; a partition loses what is in flight and is noticed after its delay; a crash delivers
 * what the crashed peer had sent, then 1006.
 */
import { describe, expect, it } from 'vitest';
import { SimNetwork, type SimConnection } from './sim-network.ts';
import { SimRandom } from './sim-random.ts';

function setup(): { net: SimNetwork; clock: { now: number }; received: string[]; a: SimConnection; b: SimConnection } {
  const clock = { now: 0 };
  const net = new SimNetwork(() => clock.now, new SimRandom(1));
  const { dialer: a, acceptor: b } = net.connect('A', 'B', 50);
  const received: string[] = [];
  for (const [end, name] of [
    [a, 'A'],
    [b, 'B'],
  ] as const) {
    end.listen({ message: (text) => received.push(`${name} got ${text}`), close: (code) => received.push(`${name} closed ${code}`) });
  }
  return { net, clock, received, a, b };
}

describe('the simulated network', () => {
  it('delivers the frames of one direction in the order they were sent, after their latency', () => {
    const { net, clock, received, a } = setup();
    for (let i = 0; i < 20; i++) a.send(String(i));
    expect(net.deliverDue()).toBe(0);
    clock.now = 1_000;
    net.deliverDue();
    expect(received).toEqual(Array.from({ length: 20 }, (_, i) => `B got ${i}`));
  });

  it('completes a close on both ends after the frames sent before it', () => {
    const { net, clock, received, a } = setup();
    a.send('last');
    a.close(1000, 'done');
    a.send('dropped');
    clock.now = 1_000;
    net.deliverDue();
    expect(received).toEqual(['B got last', 'B closed 1000', 'A closed 1000']);
  });

  it('loses what is in flight across a partition, and tells each end after the delay', () => {
    const { net, clock, received, a, b } = setup();
    a.send('lost');
    net.sever(a, 300);
    b.send('also lost');
    clock.now = 299;
    net.deliverDue();
    expect(received).toEqual([]);
    clock.now = 300;
    net.deliverDue();
    expect(received).toEqual(['A closed 1006', 'B closed 1006']);
  });

  it('delivers what a crashed peer sent, then 1006, and nothing to it', () => {
    const { net, clock, received, a, b } = setup();
    a.send('on the wire');
    b.send('to the dead');
    net.crash('A', 10);
    clock.now = 1_000;
    net.deliverDue();
    expect(received).toEqual(['B got on the wire', 'B closed 1006']);
  });
});
