/**
 * Test helpers for the limits of the sync WebSocket before the announcement: a WebSocketEndpoint
 * on its own HTTP server on 127.0.0.1 (a Sync serving as the Big Peer, in memory), certificates
 * its issuer signs, and clients bound to a chosen 127.0.0.x: `ws` clients that read the challenge,
 * and raw TCP clients that write frame headers and payloads by hand (a frame sent in part, or one
 * bigger than the announcement may be). Every wait is bounded. For tests only.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import WebSocket from 'ws';
import { LogHub, ManualTimers, Sync, generateIssuerKeys, signCertificate, type IssuerKeys, type Timers } from '../../peer/host.ts';
import type { SignedCertificate } from '../../shared/certificate.ts';
import type { LogEntry } from '../../shared/log.ts';
import { EVERYTHING } from '../../shared/permissions.ts';
import { OUTER_PROTOCOL_VERSION } from '../../shared/protocol/announce.ts';
import { announceProof, keyNamed, TEST_APP } from './test-helpers.ts';
import { WebSocketEndpoint, type WebSocketEndpointOptions } from '../../big-peer/websocket-endpoint.ts';

export const MiB = 1024 * 1024;
const WAIT_MS = 5000;

/** `promise`, or a rejection naming `what` after `ms`. */
export function bounded<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

export interface TestEndpoint {
  readonly endpoint: WebSocketEndpoint;
  readonly url: string;
  readonly issuer: IssuerKeys;
  readonly logs: LogEntry[];
  /** The server's end of every TCP connection, in order of arrival. */
  readonly serverSockets: Socket[];
  /** A certificate for the key named `name` (keyNamed), valid for an hour. */
  certificate(name: string): SignedCertificate;
  close(): Promise<void>;
}

export type EndpointLimits = Partial<Omit<WebSocketEndpointOptions, 'server' | 'sync' | 'timers' | 'logger'>> & {
  readonly handshakeTimeoutMs?: number;
  readonly timers?: Timers;
};

/** A Big Peer's sync endpoint alone, with `limits` (manual timers unless given). */
export async function startEndpoint(limits: EndpointLimits = {}): Promise<TestEndpoint> {
  const { handshakeTimeoutMs, timers = new ManualTimers(), ...options } = limits;
  const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
  const logs: LogEntry[] = [];
  hub.setCustomLogCallback((entry) => logs.push(entry));
  const sync = new Sync({ inMemory: true, logHub: hub, timers });
  const issuer = generateIssuerKeys();
  sync.serveAsBigPeer({ appID: TEST_APP, issuer, ...(handshakeTimeoutMs === undefined ? {} : { handshakeTimeoutMs }) });
  const server: Server = createServer((_req, res) => {
    res.writeHead(426);
    res.end();
  });
  const serverSockets: Socket[] = [];
  server.on('connection', (socket) => serverSockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = new WebSocketEndpoint({ server, sync, timers, logger: hub.logger('sync-ws'), ...options });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint,
    url: `ws://127.0.0.1:${port}/_sync/ws`,
    issuer,
    logs,
    serverSockets,
    certificate: (name) => {
      const now = timers.now();
      return signCertificate(
        {
          appID: TEST_APP,
          peerKey: keyNamed(name).peerKey,
          userID: name,
          permissions: EVERYTHING,
          issuer: issuer.publicKey,
          issuedAt: now,
          expiresAt: now + 3_600_000,
        },
        issuer,
      );
    },
    close: async () => {
      endpoint.cutNow();
      await endpoint.close(0);
      server.closeAllConnections();
      await bounded(new Promise<void>((resolve) => server.close(() => resolve())), 'the server to close');
      sync.close();
    },
  };
}

export interface Closed {
  readonly code: number;
  readonly reason: string;
}

/** The close of `ws`, bounded. */
export const closedWith = (ws: WebSocket, ms = WAIT_MS): Promise<Closed> =>
  bounded(new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))), 'close', ms);

/** The next frame `ws` receives, as JSON. */
export const nextMessage = (ws: WebSocket): Promise<any> =>
  bounded(new Promise((resolve) => ws.once('message', (data) => resolve(JSON.parse(data.toString())))), 'message');

export interface OpenClient {
  readonly ws: WebSocket;
  /** The challenge's nonce. */
  readonly nonce: string;
}

/** A `ws` client from `localAddress`, once it read the challenge; rejects with the close if it is refused instead. */
export function openClient(url: string, localAddress = '127.0.0.1', ms = WAIT_MS): Promise<OpenClient> {
  const ws = new WebSocket(url, { localAddress, perMessageDeflate: false });
  ws.on('error', () => undefined);
  const challenge = new Promise<OpenClient>((resolve, reject) => {
    ws.once('message', (data) => resolve({ ws, nonce: (JSON.parse(data.toString()) as { nonce: string }).nonce }));
    ws.once('close', (code, reason) => reject(Object.assign(new Error(`closed ${code} ${reason.toString()}`), { code, reason: reason.toString() })));
  });
  return bounded(challenge, 'challenge', ms).catch((error: unknown) => {
    ws.terminate();
    throw error;
  });
}

/** The announcement of the key named `name`, answering the challenge `nonce`. */
export function announcement(nonce: string, name: string, certificate: SignedCertificate): string {
  return JSON.stringify({
    type: 'announce',
    peerKey: keyNamed(name).peerKey,
    appID: TEST_APP,
    outer_protocol_version: OUTER_PROTOCOL_VERSION,
    certificate,
    proof: announceProof(keyNamed(name), TEST_APP, nonce),
    nonce: randomBytes(32).toString('base64url'),
  });
}

/** Opens a session from `localAddress` and announces `name`; resolves with the Big Peer's answer. */
export async function announced(e: TestEndpoint, name: string, localAddress = '127.0.0.1'): Promise<{ ws: WebSocket; answer: any }> {
  const { ws, nonce } = await openClient(e.url, localAddress);
  const answer = nextMessage(ws);
  ws.send(announcement(nonce, name, e.certificate(name)));
  return { ws, answer: await answer };
}

/** The header of a masked text frame of `length` bytes (mask 0: the payload goes as it is). */
export function frameHeader(length: number): Buffer {
  if (length < 126) return Buffer.from([0x81, 0x80 | length, 0, 0, 0, 0]);
  if (length < 65_536) {
    const header = Buffer.from([0x81, 0x80 | 126, 0, 0, 0, 0, 0, 0]);
    header.writeUInt16BE(length, 2);
    return header;
  }
  const header = Buffer.alloc(14);
  header[0] = 0x81;
  header[1] = 0x80 | 127;
  header.writeBigUInt64BE(BigInt(length), 2);
  return header;
}

export interface RawClient {
  readonly socket: Socket;
  /** The Big Peer's close frame, or `cut` when the connection ended without one. */
  readonly closed: Promise<Closed | 'cut'>;
  /** Bytes this client wrote that the socket accepted. */
  written(): number;
}

/**
 * A WebSocket client written by hand, from `localAddress`: resolves once the upgrade is answered
 * with 101. Frames from the Big Peer are read only to find its close frame.
 */
export function rawClient(url: string, localAddress = '127.0.0.1'): Promise<RawClient> {
  const { hostname, port, pathname } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), localAddress });
  socket.on('error', () => undefined);
  let buffered = Buffer.alloc(0);
  let upgraded = false;
  let close: Closed | undefined;
  const closed = new Promise<Closed | 'cut'>((resolve) => socket.once('close', () => resolve(close ?? 'cut')));
  const opened = new Promise<RawClient>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (!upgraded) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.subarray(0, end).toString('latin1');
        if (!head.startsWith('HTTP/1.1 101')) return reject(new Error(`upgrade refused: ${head.split('\r\n')[0]}`));
        upgraded = true;
        buffered = buffered.subarray(end + 4);
        resolve({ socket, closed, written: () => socket.bytesWritten });
      }
      // Server frames are unmasked; lengths of 126 and 127 take 2 and 8 more bytes.
      while (buffered.length >= 2) {
        const short = (buffered[1] as number) & 0x7f;
        const start = short === 126 ? 4 : short === 127 ? 10 : 2;
        if (buffered.length < start) return;
        const length = short === 126 ? buffered.readUInt16BE(2) : short === 127 ? Number(buffered.readBigUInt64BE(2)) : short;
        if (buffered.length < start + length) return;
        if (((buffered[0] as number) & 0x0f) === 0x8 && close === undefined) {
          const payload = buffered.subarray(start, start + length);
          close = { code: payload.length >= 2 ? payload.readUInt16BE(0) : 1005, reason: payload.subarray(2).toString('utf8') };
          // Answers it, as a client does: a masked close frame without a body, then the end.
          socket.end(Buffer.from([0x88, 0x80, 0, 0, 0, 0]));
        }
        buffered = buffered.subarray(start + length);
      }
    });
    socket.once('close', () => reject(new Error('closed before the upgrade was answered')));
  });
  socket.write(
    `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  return bounded(opened, 'the upgrade');
}
