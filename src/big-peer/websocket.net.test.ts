/**
 * The sync WebSocket `/_sync/ws` over real sockets: the announcement exchange, certificates that
 * are refused (4401) and frames that are malformed (4400, or a protocol error that ends only
 * that session while the Big Peer goes on serving).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ANNOUNCE_CLOSE_CODES, OUTER_PROTOCOL_VERSION } from '../shared/protocol/announce.ts';
import type { SignedCertificate } from '../shared/certificate.ts';
import { EVERYTHING } from '../shared/permissions.ts';
import { generateIssuerKeys, ManualTimers, signCertificate } from '../peer/index.ts';
import { call, PLAYGROUND_TOKEN, startTestPeer, TEST_APP, type TestPeer } from './test-helpers.ts';

const WAIT_MS = 5000;

function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: not within ${WAIT_MS} ms`)), WAIT_MS);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

async function open(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  ws.on('error', () => undefined);
  await bounded(new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject))), 'open');
  return ws;
}

const nextMessage = (ws: WebSocket): Promise<any> =>
  bounded(new Promise((resolve) => ws.once('message', (data) => resolve(JSON.parse(data.toString())))), 'message');
const closed = (ws: WebSocket): Promise<{ code: number; reason: string }> =>
  bounded(new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))), 'close');

describe('the sync WebSocket', () => {
  let t: TestPeer;
  let timers: ManualTimers;
  beforeEach(async () => {
    timers = new ManualTimers();
    t = await startTestPeer({}, timers);
  });
  afterEach(() => t.close());

  async function certificateFor(peerKey: string): Promise<SignedCertificate> {
    const res = await call(`${t.url}/_sync/auth/login`, { method: 'POST', body: { appID: TEST_APP, peerKey, token: PLAYGROUND_TOKEN } });
    return res.json.certificate;
  }

  const announcement = (peerKey: string, certificate: SignedCertificate, extra: object = {}) =>
    JSON.stringify({ type: 'announce', peerKey, appID: TEST_APP, outer_protocol_version: OUTER_PROTOCOL_VERSION, certificate, ...extra });

  async function announced(peerKey: string): Promise<WebSocket> {
    const ws = await open(t.peer.wsUrl);
    const answer = nextMessage(ws);
    ws.send(announcement(peerKey, await certificateFor(peerKey)));
    await answer;
    return ws;
  }

  it('answers a valid announcement with its own and keeps the session open', async () => {
    const ws = await open(t.peer.wsUrl);
    const answer = nextMessage(ws);
    ws.send(announcement('peer-1', await certificateFor('peer-1')));
    expect(await answer).toEqual({
      type: 'announce',
      peerKey: t.peer.sync.peerKey,
      appID: TEST_APP,
      outer_protocol_version: 1,
      subscription: { everything: true, queries: {} },
    });
    expect(ws.readyState).toBe(WebSocket.OPEN);
    expect(t.peer.sessions).toBe(1);
    expect(t.logs.some((e) => e.message.startsWith('WebSocket peer announced; peer_key = peer-1; user_id = playground'))).toBe(true);
    ws.close();
  });

  it('closes with 4401 and the reason when the certificate is from another issuer', async () => {
    const other = generateIssuerKeys();
    const now = timers.now();
    const foreign = signCertificate(
      { appID: TEST_APP, peerKey: 'peer-1', userID: 'u', permissions: EVERYTHING, issuer: other.publicKey, issuedAt: now, expiresAt: now + 60_000 },
      other,
    );
    const ws = await open(t.peer.wsUrl);
    const end = closed(ws);
    ws.send(announcement('peer-1', foreign));
    const { code, reason } = await end;
    expect(code).toBe(ANNOUNCE_CLOSE_CODES.unauthorized);
    expect(reason).toMatch(/^bad certificate \(UnknownIssuer\): the certificate was issued by /);
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(123);
  });

  it('closes with 4401 for a tampered, expired or borrowed certificate', async () => {
    const cert = await certificateFor('peer-1');
    const attempts: [string, SignedCertificate, RegExp][] = [
      ['peer-1', { claims: cert.claims, signature: cert.signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) }, /^bad certificate \(invalid\)/],
      ['peer-2', cert, /^bad certificate: it was issued to another peer key$/],
    ];
    for (const [peerKey, certificate, reason] of attempts) {
      const ws = await open(t.peer.wsUrl);
      const end = closed(ws);
      ws.send(announcement(peerKey, certificate));
      expect(await end).toEqual({ code: 4401, reason: expect.stringMatching(reason) });
    }
    timers.advance(8 * 3_600_000 + 1);
    const late = await open(t.peer.wsUrl);
    const end = closed(late);
    late.send(announcement('peer-1', cert));
    expect(await end).toEqual({ code: 4401, reason: expect.stringMatching(/^bad certificate \(expired\)/) });
  });

  it('closes with 4400 for an incompatible version, another app, or a frame that is not JSON', async () => {
    const cert = await certificateFor('peer-1');
    const frames: [string, number, RegExp][] = [
      [announcement('peer-1', cert, { outer_protocol_version: 2 }), 4400, /^outer_protocol_version 2 is not supported/],
      [announcement('peer-1', cert, { type: 'hello' }), 4400, /^the first message must be/],
      [announcement('peer-1', cert, { appID: 'other' }), 4401, /^app other is not served here$/],
      ['{"type": "announce", ', 4400, /^the announcement must be a JSON text frame$/],
    ];
    for (const [frame, code, reason] of frames) {
      const ws = await open(t.peer.wsUrl);
      const end = closed(ws);
      ws.send(frame);
      expect(await end).toEqual({ code, reason: expect.stringMatching(reason) });
    }
  });

  it('ends only the session that sent a malformed frame, and keeps serving', async () => {
    const steady = await announced('steady');
    const bad = await announced('bad');
    const end = closed(bad);
    // A frame with a reserved opcode (0xF): a WebSocket protocol error.
    (bad as unknown as { _socket: NodeJS.WritableStream })._socket.write(Buffer.from([0x8f, 0x80, 1, 2, 3, 4]));
    expect((await end).code).toBeGreaterThanOrEqual(1002);
    expect(steady.readyState).toBe(WebSocket.OPEN);
    const again = await announced('again');
    expect(t.peer.sessions).toBe(2);
    expect((await call(`${t.url}/_sync/auth/login`)).status).toBe(405);
    steady.close();
    again.close();
  });

  it('closes a session whose peer never announces itself', async () => {
    const ws = await open(t.peer.wsUrl);
    const end = closed(ws);
    timers.advance(10_000);
    expect(await end).toEqual({ code: ANNOUNCE_CLOSE_CODES.timeout, reason: 'no announcement within 10000 ms' });
  });

  it('refuses an upgrade on another path with 404', async () => {
    const ws = new WebSocket(`${t.peer.wsUrl.replace('/_sync/ws', '/elsewhere')}`);
    ws.on('error', () => undefined);
    const status = await bounded(new Promise<number>((resolve) => ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))), 'answer');
    expect(status).toBe(404);
    ws.terminate();
  });

  it('closes open sessions with 1001 when the Big Peer stops', async () => {
    const ws = await announced('peer-1');
    const end = closed(ws);
    await t.close();
    expect(await end).toEqual({ code: 1001, reason: 'Big Peer shutting down' });
  });
});
