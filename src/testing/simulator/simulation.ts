/**
 * One run of the simulator: the mesh made from the seed, then `steps` steps (each an app action
 * or a fault, then a few milliseconds of simulated time), then healing (every partition lifted,
 * every peer running, time advanced until the mesh is quiet), then the final checks. The same
 * seed and options replay the same run; `until` stops the steps early (a failure found at step
 * S replays with `until: S`), `trace` hears each step.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { armDurabilityFaults, faultAction, FAULT_WEIGHT } from './faults.ts';
import { checkHealed } from './invariants.ts';
import { Links } from './links.ts';
import { makeMesh, seedBigPeer, type StorageChoice } from './setup.ts';
import { CrashedError } from './crash-storage.ts';
import type { SimPeer } from './sim-peer.ts';
import { turns } from './sim-turns.ts';
import { appAction, APP_WEIGHT, type Action } from './workload.ts';
import { emptyStats, type SimStats, type Violation, type ViolationKind, type World } from './world.ts';
import { errorMessage } from '../../shared/error-message.ts';

export interface SimOptions {
  readonly seed: number;
  /** Small peers (besides the Big Peer). */
  readonly peers: number;
  readonly steps: number;
  /** Stop after this step (then heal and check). */
  readonly until?: number;
  readonly storage?: StorageChoice;
  /** Faults (partitions, crashes, wipes, permission changes, pauses) among the steps; default true. */
  readonly faults?: boolean;
  /** Hears each step as it is run, and healing. */
  readonly trace?: (line: string) => void;
}

export interface SimResult {
  readonly seed: number;
  /** Steps run. */
  readonly steps: number;
  readonly violations: readonly Violation[];
  readonly stats: SimStats;
  /** Simulated milliseconds. */
  readonly simulatedMs: number;
  /** The last log lines of each peer named in a violation. */
  readonly tails: Readonly<Record<string, readonly string[]>>;
}

/** How many 20 ms rounds healing may take, and how many quiet ones in a row mean quiescent. */
export const HEAL_ROUNDS = 3_000;
const QUIET_ROUNDS = 25;
const HEAL_STEP_MS = 20;
/** Event-loop turns after each bit of time. */
const TURNS = 2;
/** Violations kept per run (the first one is the one to replay). */
const MAX_VIOLATIONS = 20;

/** The directories of the runs under way (SQLite stores), for a Ctrl-C to remove. */
export const RUN_DIRECTORIES = new Set<string>();

/** Errors a write may end with without it being a finding: its peer crashed, or closed. */
function crashed(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return error instanceof CrashedError || code === 'store/closed' || code === 'sync/closed' || /crash/.test(String((error as Error).message));
}

export async function simulate(options: SimOptions): Promise<SimResult> {
  const violations: Violation[] = [];
  let step = 0;
  const report = (kind: ViolationKind, message: string): void => {
    if (violations.length < MAX_VIOLATIONS) violations.push({ kind, step, message });
  };
  const root = mkdtempSync(join(tmpdir(), 'syncmesh-sim-'));
  RUN_DIRECTORIES.add(root);
  const mesh = makeMesh(options.seed, options.peers, options.storage ?? 'mixed', root, report, () => step);
  const { random, clock, net, links, big, smalls } = mesh;
  const stats = emptyStats();
  let pending = 0;
  const world: World = {
    random,
    clock,
    net,
    links,
    big,
    smalls,
    auth: mesh.auth,
    ledger: mesh.ledger,
    stats,
    get step() {
      return step;
    },
    set step(value: number) {
      step = value;
    },
    violation: report,
    track(peer, what, operation, expected) {
      pending++;
      const incarnation = peer.incarnation;
      operation
        .catch((error: unknown) => {
          if (peer.incarnation !== incarnation || !peer.isUp || crashed(error)) return;
          if (expected?.(error) === true) {
            stats.failedWrites++;
            return;
          }
          report('operation', `${peer.name}: ${what} failed: ${errorMessage(error)}`);
        })
        .finally(() => pending--);
    },
    async advance(ms) {
      clock.advance(ms);
      net.deliverDue();
      await turns(TURNS);
    },
  };
  const trace = options.trace;
  const restartDue = async (): Promise<void> => {
    for (const peer of [big, ...smalls]) {
      if (peer.isUp || peer.restartAt === undefined || clock.now() < peer.restartAt) continue;
      trace?.(`  ${peer.name} starts again`);
      try {
        await peer.open();
      } catch (error) {
        report('operation', `${peer.name} could not start again: ${errorMessage(error)}`);
        peer.crash();
        peer.restartAt = clock.now() + 1_000;
      }
    }
  };
  try {
    await big.open();
    await seedBigPeer(big, random);
    for (const peer of smalls) await peer.open();
    if (options.faults !== false) armDurabilityFaults(world);
    const last = Math.min(options.steps, options.until ?? options.steps);
    for (step = 1; step <= last; step++) {
      await restartDue();
      links.tick();
      const action = chooseAction(world, options.faults !== false);
      trace?.(`step ${step} @ ${(clock.elapsed / 1000).toFixed(3)} s: ${action?.text ?? 'nothing'}`);
      await action?.run();
      await world.advance(random.int(0, 20));
    }
    step = last;
    trace?.('healing');
    await heal(world, restartDue, () => pending);
    const healed = checkHealed(big, smalls, mesh.ledger, mesh.auth);
    stats.orphaned = healed.orphaned;
    for (const problem of healed.problems) report(problem.kind, problem.message);
    return { seed: options.seed, steps: step, violations, stats, simulatedMs: clock.elapsed, tails: tailsOf(violations, [big, ...smalls]) };
  } finally {
    for (const peer of [big, ...smalls]) peer.dispose();
    rmSync(root, { recursive: true, force: true });
    RUN_DIRECTORIES.delete(root);
  }
}

/** Idle steps (time passes, frames travel), as a weight beside the actions'. */
const IDLE_WEIGHT = 25;

function chooseAction(world: World, faults: boolean): Action | undefined {
  const roll = world.random.next() * (APP_WEIGHT + FAULT_WEIGHT + IDLE_WEIGHT);
  if (roll < APP_WEIGHT) return appAction(world);
  if (roll < APP_WEIGHT + FAULT_WEIGHT) return faults ? faultAction(world) : undefined;
  return undefined;
}

/** Lifts every partition, starts every peer, and lets time pass until the mesh is quiet (bounded). */
async function heal(world: World, restartDue: () => Promise<void>, pending: () => number): Promise<void> {
  const { links, big, smalls, clock, net } = world;
  for (const link of links.all) link.partitioned = false;
  for (const peer of [big, ...smalls]) if (!peer.isUp) peer.restartAt = clock.now();
  let quiet = 0;
  let activity = -1;
  for (let round = 0; round < HEAL_ROUNDS; round++) {
    await restartDue();
    links.tick();
    await world.advance(HEAL_STEP_MS);
    const reasons = notQuiet(world, pending());
    const now = net.delivered;
    quiet = reasons.length === 0 && now === activity ? quiet + 1 : 0;
    activity = now;
    if (quiet >= QUIET_ROUNDS) return;
    if (round === HEAL_ROUNDS - 1)
      world.violation(
        'quiescence',
        `the mesh did not go quiet within ${(HEAL_ROUNDS * HEAL_STEP_MS) / 1000} simulated seconds of healing: ${reasons.join('; ') || 'frames kept flowing'}`,
      );
  }
}

/** Why the mesh is not quiet yet (empty: it is). */
function notQuiet(world: World, pending: number): string[] {
  const reasons: string[] = [];
  if (world.net.inFlight > 0) reasons.push(`${world.net.inFlight} frames in flight`);
  if (pending > 0) reasons.push(`${pending} operations pending`);
  const big = world.big.sync;
  for (const link of world.links.all) {
    const remote = link.acceptor.sync?.peerKey;
    const has = link.dialer.sync?.sessions.some((s) => s.remote.peerKey === remote) === true;
    if (!has) reasons.push(`no session on ${Links.label(link)}`);
  }
  for (const peer of world.smalls) {
    const state = peer.sync?.pendingUpload;
    if (state !== undefined && state.pendingCommits > 0) reasons.push(`${peer.name} has ${state.pendingCommits} commits the Big Peer has not acknowledged`);
  }
  if (big === undefined) reasons.push('the Big Peer is down');
  return reasons;
}

function tailsOf(violations: readonly Violation[], peers: readonly SimPeer[]): Record<string, readonly string[]> {
  const named = peers.filter((p) => violations.some((v) => new RegExp(`(^|\\W)${p.name}(\\W|$)`).test(v.message)));
  return Object.fromEntries(named.map((p) => [p.name, [...p.tail]]));
}
