/**
 * `transactions:list`, `transactions:slot`, `transactions:hold`, `transactions:release`: commits
 * and blocked waits since the inspector started, and the write slot now.
 *
 * Choices the contract leaves open:
 * - `documents` of a commit counts distinct documents written (an EVICT's evicted ones too).
 * - A blocked wait's `logLevel` is the level of the last "blocked" line the slot logged for it,
 *   whatever the hub's minimum level let through; a waiting writer's `logLevel` is the level of
 *   its next line at the time it is due (every 10 s of waiting).
 * - `transactions:hold` takes `ms` from 1 to 600,000 and an optional `hint` (default
 *   `inspector hold`); the hold commits an empty `User` transaction when it ends, so it shows
 *   in the timeline. It answers once the slot is held: a hold behind a long writer waits too.
 *   A hold belongs to the session that asked: one at a time, ended by `transactions:release` or
 *   when the session closes (holds.ts).
 */
import type { InspectorHandlers } from '../../../shared/inspector/contract.ts';
import type { WriteSlotState } from '../../../shared/inspector/transactions.ts';
import type { InspectorContext } from '../context.ts';
import type { Holds } from './holds.ts';
import { emptyInput, objectInput, optionalString, requiredInteger } from './input.ts';
import type { Timeline } from './timeline.ts';

type TransactionsHandlers = Pick<InspectorHandlers, 'transactions:list' | 'transactions:slot' | 'transactions:hold' | 'transactions:release'>;

export const MAX_HOLD_MS = 600_000;
export const DEFAULT_HOLD_HINT = 'inspector hold';

export function slotState(ctx: InspectorContext): WriteSlotState {
  const slot = ctx.sync.store.writeSlot;
  const now = ctx.now();
  const holder = slot.holder;
  return {
    holder:
      holder === undefined ? undefined : { txnId: holder.txnId, originator: holder.originator, hint: holder.hint, heldMs: Math.max(0, now - holder.since) },
    waiting: slot.waiters.map((w) => ({ originator: w.originator, hint: w.hint, waitingMs: Math.max(0, now - w.since), logLevel: w.nextLogLevel })),
    openReadTransactions: slot.openReadTransactions,
  };
}

export function transactionsHandlers(ctx: InspectorContext, timeline: Timeline, holds: Holds): TransactionsHandlers {
  return {
    'transactions:list': async (input) => {
      emptyInput(input);
      return { commits: timeline.commits(), waits: timeline.waits(), slot: slotState(ctx) };
    },
    'transactions:slot': async (input) => {
      emptyInput(input);
      return slotState(ctx);
    },
    'transactions:hold': async (input) => {
      const o = objectInput(input, ['ms', 'hint']);
      const ms = requiredInteger(o, 'ms', 1, MAX_HOLD_MS);
      const hint = optionalString(o, 'hint', { maxLength: 200 }) ?? DEFAULT_HOLD_HINT;
      return holds.hold(ms, hint);
    },
    'transactions:release': async (input) => {
      emptyInput(input);
      return { released: await holds.release() };
    },
  };
}
