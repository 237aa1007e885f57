/**
 * `serveInspector(sync)`: the mesh inspector attached to a peer an application runs itself, as
 * `syncmesh inspect` serves it for the peer it hosts. It creates the inspector for the Sync and
 * serves the built page and the contract on 127.0.0.1 behind a random token, and resolves to the
 * page's URL. Closing it closes the server and the inspector, never the Sync.
 *
 *   const served = await serveInspector(sync, { readOnly: true });
 *   console.log(`Inspector: ${served.url}`);
 *   …
 *   await served.close();
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sync } from '../sync/sync.ts';
import { createInspector, type Inspector, type InspectorOptions } from './inspector.ts';
import { InspectorServerOptionError } from './inspector-server-errors.ts';
import { startInspectorServer, type InspectorServer } from './inspector-server.ts';

export interface ServeInspectorOptions {
  /** The port; 0 (the default) picks a free one. */
  readonly port?: number;
  /** The one address to listen on and be reached by (default 127.0.0.1; never a wildcard). */
  readonly host?: string;
  /** Refuse every call that may change the peer (`inspector/read-only`): safe to leave on in production. */
  readonly readOnly?: boolean;
  /** The URL token (default: 32 random bytes, base64url). Keep it secret: it is the only key. */
  readonly token?: string;
  /** The built page (default: the package's own `out/renderer`; `SYNCMESH_RENDERER_DIR` overrides it). */
  readonly rendererDir?: string;
  /** Options of the inspector itself (clock, timers, log capacity, result limits). */
  readonly inspector?: InspectorOptions;
}

export interface ServedInspector extends InspectorServer {
  readonly inspector: Inspector;
}

/**
 * The page built into this package: `out/renderer` at its root. This file is
 * `src/peer/inspector/` in a checkout and `lib/peer/inspector/` in the package: three levels down
 * either way.
 */
export function defaultRendererDir(): string {
  const fromEnv = process.env['SYNCMESH_RENDERER_DIR'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'out', 'renderer');
}

/** Serves the inspector of `sync`; resolves once it listens. */
export async function serveInspector(sync: Sync, options: ServeInspectorOptions = {}): Promise<ServedInspector> {
  const rendererDir = options.rendererDir ?? defaultRendererDir();
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new InspectorServerOptionError(
      `the inspector page is not built (${join(rendererDir, 'index.html')} is missing): in a checkout run npm run build; the syncmesh package ships it in out/renderer`,
    );
  }
  const inspector = createInspector(sync, options.inspector);
  let server: InspectorServer;
  try {
    server = await startInspectorServer({
      inspector,
      rendererDir,
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
      ...(options.token === undefined ? {} : { token: options.token }),
    });
  } catch (error) {
    inspector.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    inspector,
    url: server.url,
    origin: server.origin,
    host: server.host,
    readOnly: server.readOnly,
    port: server.port,
    token: server.token,
    get sockets() {
      return server.sockets;
    },
    close() {
      closing ??= server.close().finally(() => inspector.close());
      return closing;
    },
  };
}
