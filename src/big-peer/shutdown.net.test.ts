import { describe, expect, it } from 'vitest';
import { call, startTestPeer } from '../testing/big-peer/test-helpers.ts';

describe('closing a Big Peer', () => {
  it('logs the shutdown sequence with its HTTP server really stopping, and stops answering', async () => {
    const bigPeer = await startTestPeer();
    const url = bigPeer.url;
    await bigPeer.close();
    const messages = bigPeer.logs.map((e) => e.message);
    const from = messages.indexOf('Shutting down');
    expect(messages.slice(from)).toEqual([
      'Shutting down',
      'Peer shutting down',
      'Stopping the HTTP server',
      'Stopping the TCP server (none running)',
      'Peer shutdown done',
      'shutdown complete',
      'Deallocating',
    ]);
    await expect(call(`${url}/_sync/auth/login`, { timeoutMs: 2000 })).rejects.toThrow();
  });
});
