/**
 * `eviction:scenario`: the evict/re-sync scenario run against this peer on demand, the wrong way
 * then the right way, each cycle pushed as `eviction:scenario-cycle` to every session as it ends.
 *
 * Choices:
 * - One scenario at a time per peer (per inspector), whichever window asked: a second is refused
 *   with `scenario/busy`, naming the one under way. Every window sees the one under way
 *   (`eviction:get` has it, rows included) and its rows.
 * - The scenario belongs to the session that asked: when that session closes (its window or tab
 *   went away), or the inspector does, it is aborted, and its call answers `inspector/cancelled`.
 * - `eviction:scenario-cancel` stops it from any window (every window shows it with its Cancel):
 *   it answers once the scenario has stopped and put the peer back, and the scenario's own call
 *   answers `scenario/cancelled`, saying after how many cycles.
 * - `eviction:changed` is pushed when it starts and when it ends.
 */
import type { EvictionScenarioCycle, EvictionScenarioReport, EvictionScenarioResult, EvictionScenarioRunning } from '../../../shared/inspector/eviction.ts';
import type { Sync } from '../../sync/sync.ts';
import type { InspectorContext } from '../context.ts';
import { SyncError } from '../../errors.ts';
import { cancelled } from './input.ts';

/** What runs the scenario (`runEvictLoopScenario`), injected so that tests can stand in for it. */
export type ScenarioRunner = (options: {
  readonly sync: Sync;
  readonly docs: number;
  readonly cycles: number;
  readonly onCycle?: (row: EvictionScenarioCycle) => void;
  readonly signal?: AbortSignal;
}) => Promise<EvictionScenarioReport>;

interface Running {
  readonly info: { id: number; docs: number; cycles: number; startedAt: number; rows: EvictionScenarioCycle[] };
  readonly owner: object;
  readonly controller: AbortController;
  /** Settles once the runner has returned (the peer restored), whatever the outcome. */
  ended: Promise<void>;
}

/** The abort reason of `eviction:scenario-cancel`. */
class CancelledByUser extends Error {}

export class ScenarioSlot {
  readonly #ctx: InspectorContext;
  readonly #runner: ScenarioRunner;
  #running: Running | undefined;
  #nextId = 1;
  #closed = false;

  constructor(ctx: InspectorContext, runner: ScenarioRunner) {
    this.#ctx = ctx;
    this.#runner = runner;
  }

  /** The scenario under way, if any. */
  current(): EvictionScenarioRunning | undefined {
    const info = this.#running?.info;
    return info === undefined ? undefined : { ...info, rows: [...info.rows] };
  }

  /** Runs the scenario for `owner` (a session); resolves with the report once done. */
  async run(owner: object, docs: number, cycles: number): Promise<EvictionScenarioResult> {
    if (this.#closed) throw cancelled('eviction:scenario: the inspector is closed; nothing was run');
    const busy = this.#running?.info;
    if (busy !== undefined) {
      throw new SyncError(
        'scenario/busy',
        `eviction:scenario: a scenario is already running on this peer (#${busy.id}, ${busy.docs} documents × ${busy.cycles} cycles, ${busy.rows.length} rows so far); wait for its report`,
      );
    }
    const running: Running = {
      info: { id: this.#nextId++, docs, cycles, startedAt: this.#ctx.now(), rows: [] },
      owner,
      controller: new AbortController(),
      ended: Promise.resolve(),
    };
    this.#running = running;
    const { id } = running.info;
    this.#ctx.emit('eviction:changed', {});
    let ended = (): void => {};
    running.ended = new Promise((resolve) => (ended = resolve));
    try {
      const report = await this.#runner({
        sync: this.#ctx.sync,
        docs,
        cycles,
        signal: running.controller.signal,
        onCycle: (row) => {
          if (running.controller.signal.aborted) return;
          running.info.rows.push(row);
          this.#ctx.emit('eviction:scenario-cycle', { id, row });
        },
      });
      if (running.controller.signal.aborted) throw new Error('aborted');
      return {
        id,
        collection: report.collection,
        docs: report.docs,
        cycles: report.cycles,
        wrong: report.wrong,
        right: report.right,
        loopDetected: report.loopDetected,
        rightWayClean: report.rightWayClean,
        verdict: report.verdict,
        fix: report.fix,
      };
    } catch (error) {
      const { signal } = running.controller;
      if (signal.aborted && signal.reason instanceof CancelledByUser) {
        throw new SyncError(
          'scenario/cancelled',
          `eviction:scenario: cancelled after ${running.info.rows.length} of ${cycles * 2} cycles; the peer was put back as it was (no strategy or subscription of the scenario left)`,
        );
      }
      if (signal.aborted) {
        throw cancelled(`eviction:scenario: stopped after ${running.info.rows.length} of ${cycles * 2} cycles, as its window closed`);
      }
      throw error;
    } finally {
      if (this.#running === running) this.#running = undefined;
      ended();
      if (!this.#closed) this.#ctx.emit('eviction:changed', {});
    }
  }

  /**
   * Cancels the scenario under way, whoever started it; resolves once it has stopped and the
   * peer is put back (true), or at once when none runs (false).
   */
  async cancel(): Promise<boolean> {
    const running = this.#running;
    if (running === undefined) return false;
    running.controller.abort(new CancelledByUser('cancelled'));
    await running.ended;
    return true;
  }

  /** Aborts the scenario `owner` started, if it runs. */
  cancelFor(owner: object): void {
    if (this.#running?.owner === owner) this.#running.controller.abort();
  }

  /** Aborts any scenario and refuses more. */
  close(): void {
    this.#closed = true;
    this.#running?.controller.abort();
  }
}
