/**
 * The Big Peer's HTTP contract (spec section 4; design note big-peer-api.md): paths, the exact
 * CORS headers of the login path, and the request and response bodies.
 */
import type { JsonObject, JsonValue } from './json.ts';
import type { Permissions } from './permissions.ts';
import type { SignedCertificate } from './certificate.ts';

export const BIG_PEER_PATHS = {
  execute: '/api/v4/store/execute',
  executeShort: '/store/execute',
  write: '/api/v4/store/write',
  login: '/_sync/auth/login',
  websocket: '/_sync/ws',
} as const;

/** The headers of every answer on the login path, exactly as the spec lists them (section 4.3). */
export const LOGIN_CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Credentials': 'true',
  'Access-Control-Allow-Methods': 'GET, PUT, POST, DELETE, PATCH, OPTIONS',
  'Access-Control-Allow-Headers':
    'X-SYNC-ENSURE-INSERT, X-SYNC-CLIENT-ID, X-HYDRA-ENSURE-INSERT, X-HYDRA-CLIENT-ID, Accept, Referer, Keep-Alive, User-Agent, X-Requested-With, If-Modified-Since, Cache-Control, Content-Type, Authorization, X-Forwarded-For',
  'Access-Control-Max-Age': '1728000',
};

/** `POST /api/v4/store/execute` (and `/store/execute`). */
export interface ExecuteRequest {
  readonly statement: string;
  readonly args?: JsonObject;
}

export interface ExecuteResponse {
  readonly transactionId: number | null;
  readonly queryType: 'select' | 'mutation' | 'unknown';
  readonly items: JsonObject[];
  readonly mutatedDocumentIds: JsonValue[];
  readonly error: Record<string, never> | { readonly description: string; readonly code?: string };
  readonly warnings: readonly string[];
  readonly totalWarningsCount: number;
}

/** One command of `POST /api/v4/store/write`. `query` is the older expression syntax. */
export type WriteCommand =
  | {
      readonly method: 'update';
      readonly collection: string;
      readonly query: string;
      readonly commands: readonly UpdateSubCommand[];
    }
  | {
      readonly method: 'upsert';
      readonly collection: string;
      readonly id: JsonValue;
      readonly value: JsonObject;
      readonly valueTypeOverrides?: Readonly<Record<string, 'counter'>>;
    }
  | { readonly method: 'remove'; readonly collection: string; readonly query: string };

export type UpdateSubCommand =
  | { readonly method: 'set'; readonly path: string; readonly value: JsonValue }
  | { readonly method: 'increment'; readonly path: string; readonly amount: number }
  | { readonly method: 'replaceWithCounter'; readonly path: string };

export interface WriteRequest {
  readonly args?: JsonObject;
  readonly commands: readonly WriteCommand[];
}

export interface WriteResult {
  readonly method: WriteCommand['method'];
  readonly transactionId: number;
  readonly updated?: number;
  readonly upserted?: number;
  readonly removed?: number;
}

export interface WriteResponse {
  readonly results: readonly WriteResult[];
}

/** The JSON body of every error answer outside store/execute. */
export interface ErrorResponse {
  readonly error: { readonly code: string; readonly message: string };
}

/**
 * `POST /_sync/auth/login`: no provider for the playground. `proof` shows that the caller holds
 * the private key of `peerKey`: the Ed25519 signature (base64url) of
 * `syncmesh-login\n<appID>\n<peerKey>\n<timestamp>` (src/peer/auth/proof.ts), with a
 * timestamp within 5 minutes of the Big Peer's clock.
 */
export interface LoginRequest {
  readonly appID: string;
  readonly peerKey: string;
  readonly token: string;
  readonly provider?: string;
  readonly proof: { readonly timestamp: number; readonly signature: string };
}

export interface LoginResponse {
  readonly certificate: SignedCertificate;
  /** The issuer's public key (base64url), cached with the certificate to verify peers offline. */
  readonly issuerKey: string;
  readonly expiresAt: number;
  readonly userID: string;
  readonly permissions: Permissions;
}
