/**
 * The one way a bridge (Electron IPC, the inspector's WebSocket) runs a call: whatever arrived
 * as the channel and the input, the answer is a `CallResult`, never a rejection. A handler's
 * typed error keeps its code (`query/invalid`, `inspector/not-found`, …); anything else becomes
 * `internal/unexpected` with its message.
 */
import type { InspectorHandlers } from '../../shared/inspector/contract.ts';
import { isCallName } from '../../shared/inspector/contract.ts';
import type { CallResult } from '../../shared/inspector/result.ts';
import { toErrorValue } from '../errors.ts';

/** Names a channel in a message without letting a huge or odd value through. */
function describeChannel(channel: unknown): string {
  if (typeof channel === 'string') return JSON.stringify(channel.length > 80 ? `${channel.slice(0, 80)}…` : channel);
  return channel === null ? 'null' : typeof channel;
}

export async function serveCall(handlers: InspectorHandlers, channel: unknown, input: unknown): Promise<CallResult<unknown>> {
  if (!isCallName(channel)) {
    return { ok: false, error: { code: 'inspector/bad-request', message: `channel: no inspector call is named ${describeChannel(channel)}` } };
  }
  try {
    const handler = handlers[channel] as (input: unknown) => Promise<unknown>;
    return { ok: true, value: await handler(input) };
  } catch (error) {
    return { ok: false, error: toErrorValue(error) };
  }
}
