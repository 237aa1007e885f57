/**
 * `logs:recent` and `logs:set-level`: the peer's log hub as the Logs panel sees it. Live entries
 * reach each session as `logs:batch` events through its own subscription (inspector.ts).
 *
 * Choices the contract leaves open:
 * - `logs:recent` answers every entry the hub keeps (its recent ring, 10,000 by default), oldest
 *   first; entries recorded after it arrive as `logs:batch`, so a panel may see an entry in both
 *   and should key entries by `seq`.
 * - `logs:set-level` takes any letter case (`debug`), as `SyncLogger.minimumLogLevel` does, and
 *   sets the level of this peer's hub: with the default hub, that is the process-wide
 *   `SyncLogger.minimumLogLevel`.
 */
import type { InspectorHandlers } from '../../../shared/inspector/contract.ts';
import type { LogSubscription } from '../../log/log-hub.ts';
import type { InspectorContext } from '../context.ts';
import { emptyInput, logLevel, objectInput } from './input.ts';

type LogsHandlers = Pick<InspectorHandlers, 'logs:recent' | 'logs:set-level'>;

export function logsHandlers(ctx: InspectorContext, subscription: LogSubscription): LogsHandlers {
  return {
    'logs:recent': async (input) => {
      emptyInput(input);
      const hub = ctx.sync.logHub;
      return { entries: hub.recentEntries(), minimumLogLevel: hub.minimumLogLevel, dropped: subscription.dropped };
    },
    'logs:set-level': async (input) => {
      const level = logLevel(objectInput(input, ['level']), 'level');
      ctx.sync.logHub.minimumLogLevel = level;
      return {};
    },
  };
}
