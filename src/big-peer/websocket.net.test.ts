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
import { announceProofText, generateIssuerKeys, ManualTimers, signCertificate, verifyProof } from '../peer/host.ts';
import { announceProof, call, keyNamed, PLAYGROUND_TOKEN, proven, startTestPeer, TEST_APP, type TestPeer } from '../testing/big-peer/test-helpers.ts';

const WAIT_MS = 5000;
/** The dialer's own challenge, which the Big Peer's answer signs with its issuer key. */
const DIALER_NONCE = 'dialer-nonce-0123456789abcdefghijklmnopqrstu';

function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: not within ${WAIT_MS} ms`)), WAIT_MS);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

const nonces = new WeakMap<WebSocket, string>();
const nonceOf = (ws: WebSocket): string => nonces.get(ws) ?? '';

/** Opens a session and reads the Big Peer's first frame, the challenge. */
async function open(url: string, localAddress = '127.0.0.1'): Promise<WebSocket> {
  const ws = new WebSocket(url, { localAddress });
  ws.on('error', () => undefined);
  const challenge = new Promise<any>((resolve, reject) => {
    ws.once('message', (data) => resolve(JSON.parse(data.toString())));
    ws.once('close', (code, reason) => reject(new Error(`closed ${code} ${reason.toString()}`)));
  });
  const first = await bounded(challenge, 'challenge');
  expect(first).toEqual({ type: 'challenge', nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
  nonces.set(ws, first.nonce);
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

  /** A certificate for the key named `name` (keyNamed), from a proven login. */
  async function certificateFor(name: string): Promise<SignedCertificate> {
    const res = await call(`${t.url}/_sync/auth/login`, { method: 'POST', body: proven({ appID: TEST_APP, peerKey: name, token: PLAYGROUND_TOKEN }, t.now()) });
    return res.json.certificate;
  }

  /** The announcement of the key named `name` on `ws`, with its proof over the session's challenge. */
  const announcement = (ws: WebSocket, name: string, certificate: SignedCertificate, extra: object = {}) =>
    JSON.stringify({
      type: 'announce',
      peerKey: keyNamed(name).peerKey,
      appID: TEST_APP,
      outer_protocol_version: OUTER_PROTOCOL_VERSION,
      certificate,
      proof: announceProof(keyNamed(name), TEST_APP, nonceOf(ws)),
      nonce: DIALER_NONCE,
      ...extra,
    });

  async function announced(name: string): Promise<WebSocket> {
    const ws = await open(t.peer.wsUrl);
    const answer = nextMessage(ws);
    ws.send(announcement(ws, name, await certificateFor(name)));
    await answer;
    return ws;
  }

  it('answers a valid announcement with its own and keeps the session open', async () => {
    const ws = await open(t.peer.wsUrl);
    const received: any[] = [];
    ws.on('message', (data) => received.push(JSON.parse(data.toString())));
    ws.send(announcement(ws, 'peer-1', await certificateFor('peer-1')));
    for (let i = 0; i < 500 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    const [answered, subscription] = received;
    expect(answered).toEqual({
      type: 'announce',
      role: 'big-peer',
      peerKey: t.peer.sync.peerKey,
      appID: TEST_APP,
      outer_protocol_version: OUTER_PROTOCOL_VERSION,
      proof: expect.any(String),
    });
    // The Big Peer proves it holds the issuer key by signing the dialer's nonce with it.
    expect(verifyProof(t.peer.issuer.publicKey, announceProofText(TEST_APP, t.peer.sync.peerKey, DIALER_NONCE), answered.proof)).toBe(true);
    // Then its subscription: everything, with no per-collection queries.
    expect(subscription).toMatchObject({ type: 'subscription', set: { everything: true, queries: {} } });
    expect(ws.readyState).toBe(WebSocket.OPEN);
    expect(t.peer.sessions).toBe(1);
    expect(t.logs.some((e) => e.message.startsWith(`WebSocket peer announced; peer_key = ${keyNamed('peer-1').peerKey}; user_id = playground`))).toBe(true);
    ws.close();
  });

  it('closes with 4401 and the reason when the certificate is from another issuer', async () => {
    const other = generateIssuerKeys();
    const now = timers.now();
    const foreign = signCertificate(
      {
        appID: TEST_APP,
        peerKey: keyNamed('peer-1').peerKey,
        userID: 'u',
        permissions: EVERYTHING,
        issuer: other.publicKey,
        issuedAt: now,
        expiresAt: now + 60_000,
      },
      other,
    );
    const ws = await open(t.peer.wsUrl);
    const end = closed(ws);
    ws.send(announcement(ws, 'peer-1', foreign));
    const { code, reason } = await end;
    expect(code).toBe(ANNOUNCE_CLOSE_CODES.unauthorized);
    expect(reason).toBe(`bad certificate (UnknownIssuer): issued by ${other.publicKey}, not by the issuer this peer trusts`);
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
      ws.send(announcement(ws, peerKey, certificate));
      expect(await end).toEqual({ code: 4401, reason: expect.stringMatching(reason) });
    }
    timers.advance(8 * 3_600_000 + 1);
    const late = await open(t.peer.wsUrl);
    const end = closed(late);
    late.send(announcement(late, 'peer-1', cert));
    expect(await end).toEqual({ code: 4401, reason: expect.stringMatching(/^bad certificate \(expired\)/) });
  });

  it('closes with 4400 for an incompatible version, another app, or a frame that is not JSON', async () => {
    const cert = await certificateFor('peer-1');
    const frames: [(ws: WebSocket) => string, number, RegExp][] = [
      [(ws) => announcement(ws, 'peer-1', cert, { outer_protocol_version: 1 }), 4400, /^outer_protocol_version 1 is not supported/],
      [(ws) => announcement(ws, 'peer-1', cert, { type: 'hello' }), 4400, /^the first message must be/],
      [(ws) => announcement(ws, 'peer-1', cert, { appID: 'other' }), 4401, /^app other is not served here$/],
      [(ws) => announcement(ws, 'peer-1', cert, { proof: undefined }), 4400, /^proof must be/],
      [() => '{"type": "announce", ', 4400, /^the announcement must be a JSON text frame$/],
    ];
    for (const [frame, code, reason] of frames) {
      const ws = await open(t.peer.wsUrl);
      const end = closed(ws);
      ws.send(frame(ws));
      expect(await end).toEqual({ code, reason: expect.stringMatching(reason) });
    }
  });

  it('closes with 4401 when the proof does not sign this session’s challenge with the peer key', async () => {
    const cert = await certificateFor('peer-1');
    const first = await open(t.peer.wsUrl);
    const replayed = announcement(first, 'peer-1', cert);
    first.close();
    const attempts: ((ws: WebSocket) => string)[] = [
      () => replayed, // a proof over another session's nonce
      (ws) => announcement(ws, 'peer-1', cert, { proof: announceProof(keyNamed('thief'), TEST_APP, nonceOf(ws)) }), // another key's signature
      (ws) => announcement(ws, 'peer-1', cert, { proof: 'A'.repeat(86) }),
    ];
    for (const frame of attempts) {
      const ws = await open(t.peer.wsUrl);
      const end = closed(ws);
      ws.send(frame(ws));
      expect(await end).toEqual({ code: 4401, reason: 'bad proof: not the signature of the challenge with the private key of peerKey' });
    }
    for (let i = 0; i < 100 && t.peer.sessions > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(t.peer.sessions).toBe(0);
  });

  it('keeps one session per peer key: a newer one closes the older with 4409', async () => {
    const older = await announced('peer-1');
    const end = closed(older);
    const newer = await announced('peer-1');
    expect(await end).toEqual({ code: ANNOUNCE_CLOSE_CODES.replaced, reason: 'replaced by a newer session of the same peer key' });
    expect(newer.readyState).toBe(WebSocket.OPEN);
    for (let i = 0; i < 100 && t.peer.sessions > 1; i++) await new Promise((r) => setTimeout(r, 10));
    expect(t.peer.sessions).toBe(1);
    newer.close();
  });

  it('closes a session with 4401 when its certificate expires', async () => {
    const ws = await announced('peer-1');
    const end = closed(ws);
    timers.advance(8 * 3_600_000 - 1);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    timers.advance(1);
    expect(await end).toEqual({ code: 4401, reason: 'certificate expired' });
  });

  it('refuses a new connection at once with 1013 while 256 wait for their announcement', async () => {
    // 16 from each of 16 addresses: as many as one address may have waiting.
    const waiting = await Promise.all(Array.from({ length: 256 }, (_, i) => open(t.peer.wsUrl, `127.0.0.${10 + (i % 16)}`)));
    const extra = new WebSocket(t.peer.wsUrl, { localAddress: '127.0.0.30' });
    extra.on('error', () => undefined);
    expect(await closed(extra)).toEqual({ code: 1013, reason: expect.stringMatching(/^too many sessions waiting/) });
    const end = closed(waiting[0] as WebSocket);
    (waiting[0] as WebSocket).close();
    await end;
    for (let i = 0; i < 50 && t.peer.sessions > 255; i++) await new Promise((r) => setTimeout(r, 10));
    const admitted = await open(t.peer.wsUrl, '127.0.0.30');
    expect(admitted.readyState).toBe(WebSocket.OPEN);
    for (const ws of [...waiting, admitted]) ws.terminate();
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
    timers.advance(5_000);
    expect(await end).toEqual({ code: ANNOUNCE_CLOSE_CODES.timeout, reason: 'no announcement within 5000 ms' });
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
