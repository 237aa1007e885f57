/** The Logs panel's slice: `logs` (peer data) and `logsView` (the inspector's own state). */
import type { EventWiring, SliceCreator } from '../../store/types.ts';

export interface LogsSlice {
  readonly logsView: Record<string, never>;
}

export const createLogsSlice: SliceCreator<LogsSlice> = () => ({
  logsView: {},
});

export const wireLogsEvents: EventWiring = () => () => {};
