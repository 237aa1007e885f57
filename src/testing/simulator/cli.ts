/**
 * `npm run simulate -- --seed N …`: runs the deterministic mesh simulator (docs/simulator.md) and
 * prints one line per run; for a violated invariant, what was violated, at which step, the last
 * log lines of the peers concerned, and the command that replays it. Exit status 0 when every
 * invariant held, 1 when one was violated, 2 for a bad command line.
 */
import { parseSimulateArgs, replayCommand } from './cli-args.ts';
import { rmSync } from 'node:fs';
import { RUN_DIRECTORIES, simulate, type SimResult } from './simulation.ts';

function summary(result: SimResult, seconds: number): string {
  const s = result.stats;
  return (
    `seed ${result.seed}: ${result.steps} steps, ${(result.simulatedMs / 1000).toFixed(0)} simulated s, ${seconds.toFixed(1)} s; ` +
    `${s.writes} writes (${s.failedWrites} refused), ${s.evicts} evicts, ${s.subscriptionChanges} subscription changes, ${s.permissionChanges} permission changes, ` +
    `${s.partitions} partitions, ${s.crashes} crashes, ${s.wipes} wipes, ${s.pauses} pauses, ${s.orphaned} orphaned relays: ${result.violations.length === 0 ? 'ok' : 'VIOLATED'}`
  );
}

const args = parseSimulateArgs(process.argv.slice(2));
if ('error' in args) {
  process.stderr.write(`${args.error}\n`);
  process.exit(2);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const dir of RUN_DIRECTORIES) rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  });
}
let failed = false;
for (let seed = args.seed; seed < args.seed + args.runs; seed++) {
  const started = performance.now();
  const result = await simulate({
    seed,
    peers: args.peers,
    steps: args.steps,
    until: args.until,
    storage: args.storage,
    trace: args.trace ? (line) => process.stdout.write(`${line}\n`) : undefined,
  });
  console.log(summary(result, (performance.now() - started) / 1000));
  if (result.violations.length === 0) continue;
  failed = true;
  for (const v of result.violations) console.log(`  step ${v.step}, ${v.kind}: ${v.message}`);
  for (const [peer, lines] of Object.entries(result.tails)) {
    console.log(`  last log lines of ${peer}:`);
    for (const line of lines.slice(-25)) console.log(`    ${line}`);
  }
  console.log(`  replay: ${replayCommand(args, seed, (result.violations[0] as { step: number }).step)}`);
}
process.exitCode = failed ? 1 : 0;
