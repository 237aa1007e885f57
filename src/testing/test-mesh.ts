/**
 * TEST FIXTURE: peers of one app on in-memory stores, each with a real Ed25519 key and a
 * certificate from one test issuer, replicating over in-memory connections (or, with `sqlite`,
 * on temporary SQLite stores). `settle()` waits until every session is idle and no frame is in
 * flight, bounded in rounds and time.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVERYTHING, type Permissions } from '../shared/permissions.ts';
import type { JsonObject } from '../shared/json.ts';
import type { LogEntry, LogLevel } from '../shared/log.ts';
import { generateIssuerKeys, signCertificate, type IssuerKeys } from '../peer/auth/certificate.ts';
import { signProof } from '../peer/auth/proof.ts';
import { LogHub } from '../peer/log/log-hub.ts';
import { MemoryStorage } from '../peer/storage/memory-storage.ts';
import { SqliteStorage } from '../peer/storage/sqlite-storage.ts';
import type { StorageEngine } from '../peer/storage/types.ts';
import { Store } from '../peer/store/store.ts';
import { systemTimers, type Timers } from '../peer/time.ts';
import type { LocalCredentials } from '../peer/replication/handshake.ts';
import { memoryConnectionPair, memoryFramesInFlight } from '../peer/replication/memory-transport.ts';
import { Replicator } from '../peer/replication/replicator.ts';
import type { Session } from '../peer/replication/session.ts';

export const MESH_APP = 'mesh-app';

/** The items a statement gives on a peer. */
export async function rows(peer: MeshPeer, statement: string, args?: Record<string, unknown>): Promise<JsonObject[]> {
  return (await peer.store.execute(statement, args)).items;
}

/** The `_id`s of a collection's live documents on a peer, in order. */
export async function ids(peer: MeshPeer, collection: string): Promise<string[]> {
  return (await rows(peer, `SELECT _id FROM ${collection} ORDER BY _id`)).map((r) => String(r._id));
}

export interface MeshPeer {
  readonly name: string;
  readonly store: Store;
  readonly replicator: Replicator;
  readonly peerKey: string;
  readonly logs: LogEntry[];
  readonly hub: LogHub;
  /** Log messages of the replication and txn components, in order. */
  lines(): string[];
  /** A new certificate granting these permissions (a small peer's new login); the replicator is told. */
  renewCertificate(permissions: Permissions): void;
  close(): void;
}

export interface PeerOptions {
  /** What this peer may read and write (default everything); the Big Peer always everything. */
  readonly permissions?: Permissions;
  readonly bigPeer?: boolean;
  readonly sqlite?: boolean;
  /** Reopen the store in this directory (with `sqlite`). */
  readonly dir?: string;
  readonly keyPem?: string;
  /** The replicator's clock (default the system's). */
  readonly timers?: Timers;
  /** The store's clock, which stamps its writes (default the system's). */
  readonly clock?: Timers;
  /** The lowest level its log keeps (default DEBUG). */
  readonly logLevel?: LogLevel;
  /** How long its certificate lasts from now (default an hour). */
  readonly certificateLifetimeMs?: number;
}

export interface Mesh {
  readonly issuer: IssuerKeys;
  peer(name: string, options?: PeerOptions): MeshPeer;
  /** Connects two peers (a dials b); resolves with both sessions. */
  connect(a: MeshPeer, b: MeshPeer): Promise<{ dialer: Session; acceptor: Session }>;
  /** Waits until every session of every peer is idle and nothing is in flight. */
  settle(): Promise<void>;
  dispose(): void;
}

function newKey(): { peerKey: string; pem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { peerKey: publicKey.export({ format: 'jwk' }).x as string, pem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string };
}

export function createMesh(): Mesh {
  const issuer = generateIssuerKeys();
  const peers: MeshPeer[] = [];
  const dirs: string[] = [];
  const mesh: Mesh = {
    issuer,
    peer(name, options = {}) {
      const key = newKey();
      const hub = new LogHub({ minimumLogLevel: options.logLevel ?? 'DEBUG' });
      const logs: LogEntry[] = [];
      hub.setCustomLogCallback((entry) => logs.push(entry));
      let storage: StorageEngine;
      if (options.sqlite === true) {
        const dir = options.dir ?? mkdtempSync(join(tmpdir(), `mesh-${name}-`));
        if (options.dir === undefined) dirs.push(dir);
        storage = SqliteStorage.open(dir, hub.logger('store'));
      } else {
        storage = new MemoryStorage();
      }
      const store = new Store({ storage, peerKey: key.peerKey, timers: options.clock ?? systemTimers, logger: hub.logger('store') });
      let permissions = options.permissions ?? EVERYTHING;
      const timers = options.timers ?? systemTimers;
      const now = timers.now();
      let credentials: LocalCredentials =
        options.bigPeer === true
          ? {
              appID: MESH_APP,
              peerKey: key.peerKey,
              role: 'big-peer',
              sign: (t) => signProof(issuer.privateKeyPem, t),
              certificate: undefined,
              issuerKey: issuer.publicKey,
            }
          : {
              appID: MESH_APP,
              peerKey: key.peerKey,
              role: 'small-peer',
              sign: (t) => signProof(key.pem, t),
              certificate: signCertificate(
                {
                  appID: MESH_APP,
                  peerKey: key.peerKey,
                  userID: name,
                  permissions,
                  issuer: issuer.publicKey,
                  issuedAt: now,
                  expiresAt: now + (options.certificateLifetimeMs ?? 3_600_000),
                },
                issuer,
              ),
              issuerKey: issuer.publicKey,
            };
      const replicator = new Replicator({
        store,
        logger: hub.logger('replication'),
        timers,
        credentials: () => credentials,
        localPermissions: () => (options.bigPeer === true ? EVERYTHING : permissions),
        subscribeEverything: options.bigPeer === true,
      });
      const peer: MeshPeer = {
        name,
        store,
        replicator,
        peerKey: key.peerKey,
        logs,
        hub,
        lines: () => logs.filter((e) => e.component === 'replication' || e.component === 'txn').map((e) => e.message),
        close: () => {
          replicator.close();
          store.close();
        },
        renewCertificate: (granted) => {
          if (credentials.role !== 'small-peer') throw new Error('only a small peer holds a certificate');
          permissions = granted;
          const at = timers.now();
          credentials = {
            ...credentials,
            certificate: signCertificate(
              {
                appID: MESH_APP,
                peerKey: key.peerKey,
                userID: name,
                permissions,
                issuer: issuer.publicKey,
                issuedAt: at,
                expiresAt: at + (options.certificateLifetimeMs ?? 3_600_000),
              },
              issuer,
            ),
          };
          replicator.permissionsChanged();
        },
      };
      peers.push(peer);
      return peer;
    },
    async connect(a, b) {
      const { dialer, acceptor } = memoryConnectionPair({ dialer: `memory://${a.name}`, acceptor: `memory://${b.name}` });
      const [d, c] = await Promise.all([a.replicator.dial(dialer), b.replicator.accept(acceptor)]);
      return { dialer: d, acceptor: c };
    },
    async settle() {
      const deadline = Date.now() + 20_000;
      let quiet = 0;
      for (let round = 0; round < 200_000; round++) {
        await new Promise((resolve) => setImmediate(resolve));
        const idle = memoryFramesInFlight() === 0 && peers.every((p) => p.store.isClosed || p.replicator.isIdle);
        quiet = idle ? quiet + 1 : 0;
        if (quiet >= 5) return;
        if (Date.now() > deadline) break;
      }
      throw new Error('the mesh did not settle within 20 s');
    },
    dispose() {
      for (const p of peers.splice(0)) if (!p.store.isClosed) p.close();
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
  return mesh;
}
