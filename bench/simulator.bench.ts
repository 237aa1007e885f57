/**
 * The mesh simulator's soak (docs/simulator.md): seeds run one after another for a time budget,
 * each a whole mesh (a Big Peer and five small peers) for 5,000 steps with faults, checked after
 * healing. Reported: steps per second and seeds × steps per minute, against the same mesh and
 * workload without faults (partitions, crashes, wipes, permission changes, pauses) as the
 * baseline; and the violations found, by kind, each with the command that replays it (stderr).
 * A violation is a finding, not a crash of the suite.
 */
import { simulate, type SimResult } from '../src/testing/simulator/simulation.ts';
import { replayCommand } from '../src/testing/simulator/cli-args.ts';
import type { Row, Suite, SuiteContext } from './harness.ts';

const PEERS = 5;
const STEPS = 5_000;
/** Seeds start here, so that the soak explores others than `npm test`'s. */
const FIRST_SEED = 10_000;
const SOAK_BUDGET_MS = 75_000;
const BASELINE_BUDGET_MS = 15_000;

interface Soak {
  readonly results: SimResult[];
  readonly ms: number;
}

async function soak(context: SuiteContext, label: string, faults: boolean, budgetMs: number): Promise<Soak> {
  const results: SimResult[] = [];
  const started = performance.now();
  for (let seed = FIRST_SEED; results.length === 0 || performance.now() - started < budgetMs; seed++) {
    const result = await simulate({ seed, peers: PEERS, steps: STEPS, faults });
    results.push(result);
    const first = result.violations[0];
    context.log(
      `${label} seed ${seed}: ${first === undefined ? 'ok' : `${result.violations.length} violation(s), first at step ${first.step} (${first.kind}): ${first.message.slice(0, 200)}`}`,
    );
    if (first !== undefined) context.log(`  replay: ${replayCommand({ peers: PEERS, steps: STEPS, storage: 'mixed' }, seed, first.step)}`);
  }
  return { results, ms: performance.now() - started };
}

function kinds(results: readonly SimResult[]): string {
  const count = new Map<string, number>();
  for (const r of results) for (const kind of new Set(r.violations.map((v) => v.kind))) count.set(kind, (count.get(kind) ?? 0) + 1);
  return count.size === 0 ? 'none' : [...count].map(([k, n]) => `${k} ×${n}`).join(', ');
}

export const simulatorSuite: Suite = {
  name: 'simulator',
  title: `Mesh simulator soak: a Big Peer and ${PEERS} small peers, ${STEPS.toLocaleString('en-US')} steps a seed (raw: the same without faults)`,
  summary: 'the deterministic mesh simulator: seeds × steps per minute with faults, and the violations found (raw: no faults)',
  durationSeconds: 95, // measured: one run on the 2-core VM
  async run(context) {
    const faulty = await soak(context, 'faults', true, SOAK_BUDGET_MS);
    const calm = await soak(context, 'no faults', false, BASELINE_BUDGET_MS);
    const steps = faulty.results.length * STEPS;
    const perStep = (s: Soak): number => s.ms / (s.results.length * STEPS);
    const violated = faulty.results.filter((r) => r.violations.length > 0).length;
    const perMinute = Math.round((steps / faulty.ms) * 60_000);
    const rows: Row[] = [
      {
        name: `${faulty.results.length} seeds × ${STEPS} steps: ${perMinute.toLocaleString('en-US')} steps/min; ${violated} seed(s) violated (${kinds(faulty.results)})`,
        kind: 'throughput',
        items: steps,
        ours: faulty.ms,
        raw: perStep(calm) * steps,
        repetitions: faulty.results.length,
      },
      {
        name: `without faults: ${calm.results.length} seeds; ${calm.results.filter((r) => r.violations.length > 0).length} violated (${kinds(calm.results)})`,
        kind: 'time',
        ours: perStep(faulty) * STEPS,
        raw: perStep(calm) * STEPS,
        repetitions: calm.results.length,
      },
    ];
    return rows;
  },
};
