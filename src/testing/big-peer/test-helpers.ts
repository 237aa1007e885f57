/**
 * Test helpers: a Big Peer on 127.0.0.1:0 with an in-memory store, its own log hub and an API
 * key; raw HTTP calls that show status, headers and body; a webhook server. For tests only.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { LogHub, announceProofText, loginProofText, signProof, type Timers } from '../../peer/host.ts';
import type { LoginRequest } from '../../shared/big-peer-api.ts';
import type { LogEntry } from '../../shared/log.ts';
import { BigPeer } from '../../big-peer/big-peer.ts';
import { bigPeerConfig, type BigPeerConfig } from '../../big-peer/config.ts';

export const TEST_APP = 'test-app';
export const TEST_KEY = 'smk_test-key-with-every-permission';
export const PLAYGROUND_TOKEN = 'playground-token-1';

export interface TestPeer {
  readonly peer: BigPeer;
  readonly hub: LogHub;
  readonly logs: LogEntry[];
  readonly url: string;
  /** The Big Peer's clock. */
  now(): number;
  close(): Promise<void>;
}

export async function startTestPeer(config: Partial<BigPeerConfig> = {}, timers?: Timers): Promise<TestPeer> {
  const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
  const logs: LogEntry[] = [];
  hub.setCustomLogCallback((entry) => logs.push(entry));
  const peer = await BigPeer.start(bigPeerConfig({ appID: TEST_APP, apiKeys: [TEST_KEY], playgroundToken: PLAYGROUND_TOKEN, ...config }), {
    logHub: hub,
    ...(timers === undefined ? {} : { timers }),
  });
  return { peer, hub, logs, url: peer.url, now: () => (timers === undefined ? Date.now() : timers.now()), close: () => peer.close() };
}

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The body as JSON, or undefined when it is not JSON. */
  readonly json: any;
}

export interface CallOptions {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string is sent as is; anything else as JSON. */
  readonly body?: unknown;
  /** Bound on the whole call (default 10 s). */
  readonly timeoutMs?: number;
}

/** One HTTP call over a fresh connection, with every wait bounded. */
export function call(url: string, options: CallOptions = {}): Promise<RawResponse> {
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers: { ...options.headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new Error(`no answer from ${url} in time`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Waits until `check` holds, looking every 20 ms; fails naming `what` after `ms` (default 15 s). */
export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A POST with the test API key. */
export function post(url: string, body: unknown, headers: Readonly<Record<string, string>> = {}): Promise<RawResponse> {
  return call(url, { method: 'POST', body, headers: { Authorization: `Bearer ${TEST_KEY}`, 'Content-Type': 'application/json', ...headers } });
}

/** A webhook that answers each login with what `answer` returns: a status and a raw body. */
export async function startWebhook(answer: (body: any) => { status?: number; body: string }): Promise<{ url: string; calls: any[]; close(): Promise<void> }> {
  const calls: any[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      calls.push(body);
      const { status = 200, body: text } = answer(body);
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/auth`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: one the system gave and took back. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A peer's key pair, as a small peer holds it: the peer key (base64url) and the private key (PEM). */
export interface TestKey {
  readonly peerKey: string;
  readonly privateKeyPem: string;
}

export function testKey(): TestKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const peerKey = publicKey.export({ format: 'jwk' }).x as string;
  return { peerKey, privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string };
}

const namedKeys = new Map<string, TestKey>();
/** The same key pair for the same name, within one test run (names like 'peer-1' in tests). */
export function keyNamed(name: string): TestKey {
  let key = namedKeys.get(name);
  if (key === undefined) namedKeys.set(name, (key = testKey()));
  return key;
}

/** A login body with a valid proof of `key` (a fresh one by default), dated `now` (the Big Peer's clock). */
export function loginBody(appID: string, token: string, provider?: string, options: { key?: TestKey; now?: number } = {}): LoginRequest {
  const key = options.key ?? testKey();
  const timestamp = options.now ?? Date.now();
  return {
    appID,
    peerKey: key.peerKey,
    token,
    ...(provider === undefined ? {} : { provider }),
    proof: { timestamp, signature: signProof(key.privateKeyPem, loginProofText(appID, key.peerKey, timestamp)) },
  };
}

/** The `proof` of an announcement answering the challenge `nonce`. */
export function announceProof(key: TestKey, appID: string, nonce: string): string {
  return signProof(key.privateKeyPem, announceProofText(appID, key.peerKey, nonce));
}

/**
 * `body` with a valid proof: its `peerKey` is taken as a name (keyNamed) and replaced by that
 * key's peer key. Anything but an object with a string peerKey, or one with a proof, is left as is.
 */
export function proven(body: unknown, now: number): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const b = body as Record<string, unknown>;
  if (typeof b.peerKey !== 'string' || 'proof' in b || typeof b.appID !== 'string') return body;
  const key = keyNamed(b.peerKey);
  return { ...b, peerKey: key.peerKey, proof: { timestamp: now, signature: signProof(key.privateKeyPem, loginProofText(b.appID, key.peerKey, now)) } };
}
