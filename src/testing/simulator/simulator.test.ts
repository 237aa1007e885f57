/**
 * The mesh simulator (docs/simulator.md) on a fixed set of seeds, each a Big Peer and five small
 * peers for 1,200 steps of writes, EVICTs, subscription and permission changes, partitions,
 * crashes and wipes, then healed and checked. A failure names the seed and the command that
 * replays it step by step. `npm run bench -- simulator` runs more seeds, longer.
 */
import { describe, expect, it } from 'vitest';
import { replayCommand } from './cli-args.ts';
import { simulate } from './simulation.ts';

const PEERS = 5;
const STEPS = 1_200;
/**
 * Seeds 2 (a stale relayed copy) and 13 (a widened read permission) found findings 4 and 5 of
 * docs/simulator.md ("Findings"); they hold since those were fixed. A seed that finds an open
 * finding is left out, and the finding pinned by an it.fails regression test.
 */
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 13];

describe('the mesh simulator', () => {
  it.each(SEEDS)(
    'holds every invariant for seed %i',
    async (seed) => {
      const result = await simulate({ seed, peers: PEERS, steps: STEPS });
      const first = result.violations[0];
      const replay = first === undefined ? '' : `\nreplay: ${replayCommand({ peers: PEERS, steps: STEPS, storage: 'mixed' }, seed, first.step)}`;
      expect(
        result.violations.map((v) => `step ${v.step}, ${v.kind}: ${v.message}`),
        `seed ${seed}${replay}`,
      ).toEqual([]);
      expect(result.stats.writes).toBeGreaterThan(STEPS / 3);
    },
    60_000,
  );

  it('replays a seed step for step: the same actions, the same outcome', async () => {
    const run = async (): Promise<{ trace: string[]; violations: string[]; simulatedMs: number }> => {
      const trace: string[] = [];
      const result = await simulate({ seed: 42, peers: 3, steps: 400, trace: (line) => trace.push(line) });
      return { trace, violations: result.violations.map((v) => v.message), simulatedMs: result.simulatedMs };
    };
    const first = await run();
    expect(first.trace.length).toBeGreaterThan(400);
    expect(await run()).toEqual(first);
  }, 60_000);

  it('stops at --until and still heals and checks', async () => {
    const result = await simulate({ seed: 7, peers: 2, steps: 1_000, until: 50 });
    expect(result.steps).toBe(50);
    expect(result.violations).toEqual([]);
  }, 60_000);
});
