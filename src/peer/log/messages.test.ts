/** Log messages: a field value can never start a new line, and very long values are cut. */
import { describe, expect, it } from 'vitest';
import { LOG_EVENTS, MAX_LOG_FIELD_CHARS, renderLogLine } from '../../shared/log.ts';
import { renderMessage } from './messages.ts';

describe('renderMessage', () => {
  it('renders an appID holding a newline on one line, the newline escaped', () => {
    const forged = 'x\n[INFO] 2026-01-01T00:00:00.000Z: Login succeeded; app_id = app\r\u0000\u001b';
    const message = renderMessage(LOG_EVENTS.bigPeerStarted, { app_id: forged, url: 'u', ws_url: 'w', issuer: 'i' });
    const line = renderLogLine({ level: 'INFO', timestamp: '2026-11-21T00:00:00.000Z', message });
    expect(line.split(/[\n\r]/)).toHaveLength(1);
    expect(line).toContain('app_id = x\\n[INFO] 2026-01-01T00:00:00.000Z: Login succeeded; app_id = app\\r\\u0000\\u001b; url = u');
  });

  it('cuts a field value over the limit with …', () => {
    const message = renderMessage(LOG_EVENTS.observerCancelled, { id: 'a'.repeat(MAX_LOG_FIELD_CHARS + 500) });
    expect(message).toBe(`Observer cancelled; id = ${'a'.repeat(MAX_LOG_FIELD_CHARS)}…`);
  });

  it('escapes an unknown event rendered as JSON and a message given whole', () => {
    expect(renderMessage('custom.event', { a: 'x\ny' })).not.toMatch(/\n/);
    expect(renderLogLine({ level: 'WARN', timestamp: 't', message: 'one\ntwo' })).toBe('[WARN] t: one\\ntwo');
  });
});
