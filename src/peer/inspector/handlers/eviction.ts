/**
 * `eviction:get`, `eviction:dry-run`, `eviction:run`, `eviction:scenario`: the eviction
 * strategies of this peer (`sync.eviction`), their runs, the chart (eviction-sampler.ts) and the
 * evict/re-sync scenario (eviction-scenario.ts).
 *
 * Choices the contract leaves open:
 * - `eviction:get` starts the sampler if it had not started (a peer that never evicted), so the
 *   chart runs from the moment the panel is first opened.
 * - `eviction:dry-run` and `eviction:run` of a collection without a strategy answer the peer's
 *   `eviction/not-configured`, naming the collections that have one. Every other refusal of a
 *   run (too soon, a blocked write, an overlap, busy) is a run with outcome `refused` and its
 *   code: a value, never an error.
 * - `eviction:scenario` takes `docs` from 1 to MAX_SCENARIO_DOCS and `cycles` from 1 to
 *   MAX_SCENARIO_CYCLES (cycles each way).
 */
import type { InspectorHandlers } from '../../../shared/inspector/contract.ts';
import {
  MAX_SCENARIO_CYCLES,
  MAX_SCENARIO_DOCS,
  type EvictionCollectionInfo,
  type EvictionDryRunInfo,
  type EvictionOverlapInfo,
  type EvictionRunInfo,
  type EvictionState,
  type EvictionStrategyInfo,
} from '../../../shared/inspector/eviction.ts';
import type {
  EvictionDryRun,
  EvictionOptions,
  EvictionOverlapCheck,
  EvictionRun,
  EvictionSnapshot,
  EvictionStatus,
  EvictionStrategyConfig,
  RunOptions,
} from '../../eviction/types.ts';
import { SyncError } from '../../errors.ts';
import type { InspectorContext } from '../context.ts';
import type { EvictionSampler } from './eviction-sampler.ts';
import type { ScenarioSlot } from './eviction-scenario.ts';
import { evictionOverlaps, overlapOf } from './eviction-overlap.ts';
import { badRequest, emptyInput, notFound, objectInput, requiredInteger, requiredString } from './input.ts';

type EvictionHandlers = Pick<
  InspectorHandlers,
  | 'eviction:get'
  | 'eviction:dry-run'
  | 'eviction:run'
  | 'eviction:narrow-subscription'
  | 'eviction:fix-strategy'
  | 'eviction:scenario'
  | 'eviction:scenario-cancel'
>;

/** What the handlers need of `sync.eviction` (the EvictionManager). */
export interface EvictionPort {
  snapshot(): EvictionSnapshot;
  dryRun(collection: string): EvictionDryRun;
  overlap(collection: string): EvictionOverlapCheck | undefined;
  runNow(collection: string, options?: RunOptions): Promise<EvictionRun>;
  onRun(listener: (run: EvictionRun) => void): () => void;
  configure(options: EvictionOptions): void;
}

/**
 * The running peer's strategies with `collection`'s local strategy given `subscribeWhere`, its
 * window and schedule as they are.
 */
function withSubscribeWhere(snapshot: EvictionSnapshot, collection: string, subscribeWhere: string | undefined): EvictionOptions {
  return {
    window: snapshot.window,
    scheduled: snapshot.scheduled,
    quietAfterBlockedMs: snapshot.quietAfterBlockedMs,
    strategies: snapshot.collections.map(({ config }) => {
      if (config.collection !== collection || config.kind !== 'local') return config;
      const { subscribeWhere: _old, ...rest } = config;
      return subscribeWhere === undefined ? rest : { ...rest, subscribeWhere };
    }),
  };
}

// The peer's runs and dry runs cross the bridge as they are: their shapes are the contract's.
const asRunInfo = (run: EvictionRun): EvictionRunInfo => run;
const asDryRunInfo = (dry: EvictionDryRun): EvictionDryRunInfo => dry;

export function strategyInfo(config: EvictionStrategyConfig): EvictionStrategyInfo {
  const manual = config.scheduled === false ? { scheduled: false } : {};
  if (config.kind === 'big-peer') return { kind: 'big-peer', collection: config.collection, ...manual };
  return {
    ...manual,
    kind: 'local',
    collection: config.collection,
    field: config.field ?? 'createdAt',
    ttlHours: config.ttlHours,
    ...(config.evictWhere === undefined ? {} : { evictWhere: config.evictWhere }),
    ...(config.subscribeWhere === undefined ? {} : { subscribeWhere: config.subscribeWhere }),
  };
}

function collectionInfo(status: EvictionStatus, overlap: EvictionOverlapInfo | undefined): EvictionCollectionInfo {
  return {
    strategy: strategyInfo(status.config),
    subscription: status.subscription,
    lastRunAt: status.lastRunAt,
    lastRun: status.lastRun === undefined ? undefined : asRunInfo(status.lastRun),
    nextRunAt: status.nextRunAt,
    ...(overlap === undefined ? {} : { overlap }),
  };
}

export function evictionState(ctx: InspectorContext, port: EvictionPort, sampler: EvictionSampler, scenarios: ScenarioSlot): EvictionState {
  const snapshot = port.snapshot();
  const overlaps = evictionOverlaps(port);
  return {
    configured: snapshot.collections.length > 0,
    window: snapshot.window,
    scheduled: snapshot.scheduled,
    quietAfterBlockedMs: snapshot.quietAfterBlockedMs,
    collections: snapshot.collections.map((status) => collectionInfo(status, overlaps.get(status.config.collection))),
    runs: snapshot.runs.map(asRunInfo),
    samples: sampler.samples(),
    marks: sampler.marks(),
    sampleEveryMs: sampler.everyMs,
    sampleCapacity: sampler.capacity,
    scenario: scenarios.current(),
    now: ctx.now(),
  };
}

/**
 * `session` owns the scenarios it starts (they end when it closes); `port` is `sync.eviction`.
 */
export function evictionHandlers(
  ctx: InspectorContext,
  port: EvictionPort,
  sampler: EvictionSampler,
  scenarios: ScenarioSlot,
  session: object,
): EvictionHandlers {
  return {
    'eviction:get': async (input) => {
      emptyInput(input);
      sampler.start();
      return evictionState(ctx, port, sampler, scenarios);
    },
    'eviction:dry-run': async (input) => {
      const o = objectInput(input, ['collection']);
      const collection = requiredString(o, 'collection', { maxLength: 1000, nonEmpty: true });
      return asDryRunInfo(port.dryRun(collection));
    },
    'eviction:run': async (input) => {
      const o = objectInput(input, ['collection', 'force']);
      const collection = requiredString(o, 'collection', { maxLength: 1000, nonEmpty: true });
      const force = o['force'];
      if (force !== undefined && typeof force !== 'boolean')
        throw badRequest(`force: expected true or false, got ${force === null ? 'null' : Array.isArray(force) ? 'an array' : `a ${typeof force}`}`);
      return asRunInfo(await port.runNow(collection, { force: force === true }));
    },
    'eviction:narrow-subscription': async (input) => {
      const o = objectInput(input, ['collection', 'subscriptionId']);
      const collection = requiredString(o, 'collection', { maxLength: 1000, nonEmpty: true });
      const id = requiredInteger(o, 'subscriptionId', 1, Number.MAX_SAFE_INTEGER);
      // The fix is the dry run's, worked out now: never a statement the caller sent.
      const fix = overlapOf(port.dryRun(collection))?.subscriptions.find((s) => s.subscriptionId === id);
      const store = ctx.sync.store;
      const subscription = store.subscriptions.find((s) => s.id === id && !s.isCancelled);
      if (fix === undefined || subscription === undefined) {
        throw notFound(`subscriptionId: subscription ${id} does not overlap what the strategy of ${collection} evicts (any more); nothing was changed`);
      }
      // Registered first: the documents it keeps stay subscribed throughout.
      const registered = store.registerSubscription(fix.narrowed);
      subscription.cancel();
      ctx.emit('eviction:changed', {});
      return { cancelled: { id, statement: subscription.statement }, registered: { id: registered.id, statement: registered.statement } };
    },
    'eviction:fix-strategy': async (input) => {
      const o = objectInput(input, ['collection']);
      const collection = requiredString(o, 'collection', { maxLength: 1000, nonEmpty: true });
      // The fix is the dry run's, worked out now: never a condition the caller sent.
      const suggested = overlapOf(port.dryRun(collection))?.suggestedSubscribeWhere;
      const snapshot = port.snapshot();
      const config = snapshot.collections.find((c) => c.config.collection === collection)?.config;
      if (suggested === undefined || config?.kind !== 'local') {
        throw notFound(`collection: the local strategy of ${collection} does not overlap its own subscription (any more); nothing was changed`);
      }
      const before = config.subscribeWhere;
      port.configure(withSubscribeWhere(snapshot, collection, suggested));
      if (overlapOf(port.dryRun(collection)) !== undefined) {
        // Put back as it was: a fix that does not end the overlap is not left in place.
        port.configure(withSubscribeWhere(port.snapshot(), collection, before));
        throw new SyncError(
          'eviction/overlap',
          `subscribeWhere ${suggested} would still overlap what the strategy of ${collection} evicts; nothing was changed`,
        );
      }
      ctx.emit('eviction:changed', {});
      return { collection, before, after: suggested };
    },
    'eviction:scenario': async (input) => {
      const o = objectInput(input, ['docs', 'cycles']);
      const docs = requiredInteger(o, 'docs', 1, MAX_SCENARIO_DOCS);
      const cycles = requiredInteger(o, 'cycles', 1, MAX_SCENARIO_CYCLES);
      return scenarios.run(session, docs, cycles);
    },
    'eviction:scenario-cancel': async (input) => {
      emptyInput(input);
      return { cancelled: await scenarios.cancel() };
    },
  };
}
