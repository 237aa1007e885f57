/**
 * TEST FIXTURE: TLS servers on 127.0.0.1 whose certificates a client must refuse, made with
 * openssl in a temporary directory:
 * - `untrusted`: a self-signed certificate nobody trusts (what a proxy substituting its own
 *   certificate, or a server with an unknown issuer, looks like to the client);
 * - `criticalExtension`: a certificate with an extension marked critical that no client knows
 *   (OID 1.2.3.4), which OpenSSL refuses as "unhandled critical extension".
 * Each server answers HTTPS requests with 404 and takes WebSocket upgrades (`/_sync/ws`), so
 * that the auth client's login and the dialer's wss:// connection can both be pointed at it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';

export type RefusedCertificate = 'untrusted' | 'criticalExtension';

export interface RefusingTlsServer {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** `wss://127.0.0.1:<port>/_sync/ws` */
  readonly wsUrl: string;
  close(): Promise<void>;
}

export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Makes the certificate of `kind` (and its key) in a fresh directory, with openssl. */
function makeCertificate(kind: RefusedCertificate): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'tls-refused-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    const extensions = ['-addext', 'subjectAltName=IP:127.0.0.1', ...(kind === 'criticalExtension' ? ['-addext', '1.2.3.4=critical,ASN1:NULL'] : [])];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        ...extensions,
      ],
      { stdio: 'ignore', timeout: 20_000 },
    );
    return { key: readFileSync(key), cert: readFileSync(cert) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startRefusingTlsServer(kind: RefusedCertificate): Promise<RefusingTlsServer> {
  const server: Server = createServer(makeCertificate(kind), (_req, res) => {
    res.writeHead(404);
    res.end();
  });
  // A client that refuses the certificate aborts the handshake: the server side sees errors.
  server.on('tlsClientError', () => {});
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => ws.on('error', () => {}));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    wsUrl: `wss://127.0.0.1:${port}/_sync/ws`,
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
