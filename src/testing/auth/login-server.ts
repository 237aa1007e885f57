/**
 * TEST FIXTURE, not the Big Peer: a stand-in for the Big Peer's login endpoint that follows
 * its contract (src/shared/big-peer-api.ts) closely enough to test the auth client: it signs
 * real certificates, and answers 401 for a wrong app id, a login proof that is missing, stale
 * (outside LOGIN_PROOF_WINDOW_MS) or does not verify, a wrong token or a webhook's refusal, and 502
 * for an unreachable or malformed webhook, with the Big Peer's error bodies. Webhooks are
 * simulated by functions. `answerLogin` is the logic; `startFixtureLoginServer` serves it over
 * real HTTP on 127.0.0.1, and `fixtureFetch` calls it in-process for tests without sockets.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BIG_PEER_PATHS, type ErrorResponse, type LoginRequest, type LoginResponse } from '../../shared/big-peer-api.ts';
import { EVERYTHING, type Permissions } from '../../shared/permissions.ts';
import { generateIssuerKeys, signCertificate, type IssuerKeys } from '../../peer/auth/certificate.ts';
import type { FetchLike } from '../../peer/auth/login-request.ts';
import { LOGIN_PROOF_WINDOW_MS, loginProofText, verifyProof } from '../../peer/auth/proof.ts';

/** What a simulated webhook does with a token. */
export type FixtureWebhook = (
  token: string,
) =>
  | { readonly kind: 'accept'; readonly userID: string; readonly permissions?: Permissions; readonly lifetimeSeconds?: number }
  | { readonly kind: 'reject' }
  | { readonly kind: 'unreachable' }
  | { readonly kind: 'malformed' };

export interface FixtureLoginOptions {
  readonly appID: string;
  /** The playground token; logins without a provider must carry it. */
  readonly playgroundToken?: string;
  readonly providers?: Readonly<Record<string, FixtureWebhook>>;
  readonly issuer?: IssuerKeys;
  /** The fixture's clock (the test's ManualTimers). */
  readonly now: () => number;
  /** Certificate lifetime for the playground (default 8 hours). */
  readonly lifetimeSeconds?: number;
}

export interface FixtureAnswer {
  readonly status: number;
  readonly body: string;
}

export const FIXTURE_LIFETIME_SECONDS = 8 * 3600;
export const MALFORMED_WEBHOOK_MESSAGE =
  'Failed to authenticate: Internal server error: response body cannot be decoded as JSON: expected value at line 1 column 1';

export class FixtureLogin {
  readonly issuer: IssuerKeys;
  /** Every login request received, in order. */
  readonly requests: LoginRequest[] = [];
  readonly #options: FixtureLoginOptions;

  constructor(options: FixtureLoginOptions) {
    this.#options = options;
    this.issuer = options.issuer ?? generateIssuerKeys();
  }

  /** The answer to one `POST /_sync/auth/login` body. */
  answer(text: string): FixtureAnswer {
    const error = (status: number, code: string, message: string): FixtureAnswer => ({
      status,
      body: JSON.stringify({ error: { code, message } } satisfies ErrorResponse),
    });
    let request: LoginRequest;
    try {
      request = JSON.parse(text) as LoginRequest;
    } catch {
      return error(400, 'http/bad-request', 'the body is not JSON');
    }
    this.requests.push(request);
    const o = this.#options;
    if (request.appID !== o.appID) return error(401, 'auth/failed', `Authentication failed: unknown app id ${String(request.appID)}`);
    // As the Big Peer does: the caller must prove it holds the peer key's private key, with a
    // timestamp within LOGIN_PROOF_WINDOW_MS of the server's clock.
    const proof = request.proof as Partial<LoginRequest['proof']> | undefined;
    if (
      typeof proof !== 'object' ||
      proof === null ||
      typeof proof.timestamp !== 'number' ||
      !Number.isFinite(proof.timestamp) ||
      Math.abs(proof.timestamp - o.now()) > LOGIN_PROOF_WINDOW_MS ||
      typeof request.peerKey !== 'string' ||
      !verifyProof(request.peerKey, loginProofText(request.appID, request.peerKey, proof.timestamp), proof.signature)
    ) {
      return error(401, 'auth/failed', 'Authentication failed: the login proof of the peer key is missing, stale or does not verify');
    }
    let grant: { userID: string; permissions: Permissions; lifetimeSeconds: number };
    if (request.provider === undefined) {
      if (o.playgroundToken === undefined || request.token !== o.playgroundToken)
        return error(401, 'auth/failed', 'Authentication failed: invalid playground token');
      grant = { userID: 'playground', permissions: EVERYTHING, lifetimeSeconds: o.lifetimeSeconds ?? FIXTURE_LIFETIME_SECONDS };
    } else {
      const webhook = o.providers?.[request.provider];
      if (webhook === undefined) return error(401, 'auth/failed', `Authentication failed: unknown provider ${request.provider}`);
      const verdict = webhook(request.token);
      if (verdict.kind === 'unreachable') return error(502, 'auth/unreachable', 'Could not connect to authentication server');
      if (verdict.kind === 'malformed') return error(502, 'auth/failed', MALFORMED_WEBHOOK_MESSAGE);
      if (verdict.kind === 'reject') return error(401, 'auth/failed', 'Authentication failed: the webhook refused the token');
      grant = {
        userID: verdict.userID,
        permissions: verdict.permissions ?? EVERYTHING,
        lifetimeSeconds: verdict.lifetimeSeconds ?? o.lifetimeSeconds ?? FIXTURE_LIFETIME_SECONDS,
      };
    }
    const issuedAt = o.now();
    const expiresAt = issuedAt + grant.lifetimeSeconds * 1000;
    const certificate = signCertificate(
      { appID: o.appID, peerKey: request.peerKey, userID: grant.userID, permissions: grant.permissions, issuer: this.issuer.publicKey, issuedAt, expiresAt },
      this.issuer,
    );
    const response: LoginResponse = { certificate, issuerKey: this.issuer.publicKey, expiresAt, userID: grant.userID, permissions: grant.permissions };
    return { status: 200, body: JSON.stringify(response) };
  }

  /** A `fetch` that answers in-process, as the server would (for tests without sockets). */
  fetch: FetchLike = async (url, init) => {
    if (!url.endsWith(BIG_PEER_PATHS.login)) return { status: 404, text: async () => 'not found' };
    const answer = this.answer(init.body);
    return { status: answer.status, text: async () => answer.body };
  };
}

export interface FixtureLoginServer {
  /** `http://127.0.0.1:<port>`: the Big Peer URL to give the identity. */
  readonly url: string;
  readonly login: FixtureLogin;
  close(): Promise<void>;
}

/** Serves the fixture over real HTTP on 127.0.0.1 and an ephemeral port. */
export async function startFixtureLoginServer(options: FixtureLoginOptions): Promise<FixtureLoginServer> {
  const login = new FixtureLogin(options);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer =
        req.method === 'POST' && req.url === BIG_PEER_PATHS.login
          ? login.answer(Buffer.concat(chunks).toString('utf8'))
          : { status: 404, body: JSON.stringify({ error: { code: 'http/not-found', message: 'No such endpoint' } }) };
      res.writeHead(answer.status, { 'Content-Type': 'application/json' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    login,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL on 127.0.0.1 where nothing listens: a port just bound and released. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
