/**
 * The browser mode's server: the built renderer and the inspector contract over a WebSocket, on
 * 127.0.0.1 only, behind a random token in the URL path.
 *
 *   GET /<token>/          index.html
 *   GET /<token>/<file>    a file of the build (assets/…)
 *   GET /<token>/ws        the WebSocket bridge (frames of src/shared/inspector/contract.ts)
 *
 * Everything else is 404 with an empty body: without the token nothing is served, not even a
 * hint that this is SyncMesh. A request whose Host is not this server's own `127.0.0.1:<port>` is
 * refused (421) so that a page on another site cannot reach it through DNS rebinding, and a
 * WebSocket whose Origin is not this server's origin is refused (403) so that no other page can
 * open the bridge. Each socket is one inspector session, closed with the socket.
 *
 * It listens on 127.0.0.1 unless `host` names another address of this machine (one address, never
 * a wildcard: the Host check needs the one name the page is reached by). In read-only mode every
 * call that may change the peer (`mayChangePeer`) is answered `inspector/read-only` and never run.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo, type Socket } from 'node:net';
import { extname, join, sep } from 'node:path';
import { WebSocketServer, WebSocket, type RawData } from 'ws';
import { contentSecurityPolicy } from '../../shared/content-security-policy.ts';
import { decodeClientFrame, isCallName, type BridgeServerFrame, type InspectorSession } from '../../shared/inspector/contract.ts';
import { mayChangePeer } from '../../shared/inspector/call-effects.ts';
import { errorResult } from '../../shared/inspector/result.ts';
import { InspectorServerOptionError } from './inspector-server-errors.ts';
import { serveCall } from './serve-call.ts';

/** What the server needs of the peer's inspector. */
export interface SessionSource {
  openSession(): InspectorSession;
}

export interface InspectorServerOptions {
  readonly inspector: SessionSource;
  /** The built renderer (`out/renderer`): index.html and its assets. */
  readonly rendererDir: string;
  /** The port; 0 (the default) picks a free one. */
  readonly port?: number;
  /**
   * The address to listen on, and the only one the page may be reached by: 127.0.0.1 (the
   * default), or another IPv4 or IPv6 address of this machine. A wildcard (`0.0.0.0`, `::`) or a
   * name is refused (`inspector/bad-option`).
   */
  readonly host?: string;
  /** Refuse every call that may change the peer with `inspector/read-only` (default false). */
  readonly readOnly?: boolean;
  /** The URL token; by default 32 random bytes, base64url. */
  readonly token?: string;
  /** The largest frame a client may send; a larger one closes its socket (1009). Default 1 MiB. */
  readonly maxFrameBytes?: number;
  /** A socket whose unsent output grows past this is closed (the page reconnects). Default 64 MiB. */
  readonly maxBufferedBytes?: number;
}

export interface InspectorServer {
  /** `http://127.0.0.1:<port>/<token>/`: the page. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** The address it listens on (127.0.0.1 unless told otherwise). */
  readonly host: string;
  readonly readOnly: boolean;
  readonly port: number;
  readonly token: string;
  /** Open WebSocket connections (one session each). */
  readonly sockets: number;
  /** Closes every socket (and its session) and stops listening. */
  close(): Promise<void>;
}

export const HOST = '127.0.0.1';
/** The answer to a call that may change the peer, on a read-only server. */
export const READ_ONLY_MESSAGE =
  'This inspector is read-only: it shows the peer but does not change it (queries other than SELECT and EXPLAIN, holds, sync, subscriptions, eviction and preferences are refused).';
const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;
const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Headers of every answer. The page's policy is the build's own (its meta tag holds the same),
 * plus what only a header can say: no framing by other pages.
 */
const SECURITY_HEADERS: OutgoingHttpHeaders = {
  'Content-Security-Policy': `${contentSecurityPolicy('production')}; frame-ancestors 'none'`,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** The meta tag a read-only server adds to the page's `<head>` (the renderer reads it: `client/index.ts`). */
export const READ_ONLY_META = '<meta name="syncmesh-read-only" content="true">';

function markReadOnly(html: Buffer): Buffer {
  const text = html.toString('utf8');
  // Inside <head>; without one, after the doctype (a tag before it would put the page in quirks mode).
  const head = /<head[^>]*>/i.exec(text) ?? /^\s*<!doctype[^>]*>/i.exec(text);
  const at = head === null ? 0 : head.index + head[0].length;
  return Buffer.from(`${text.slice(0, at)}${READ_ONLY_META}${text.slice(at)}`, 'utf8');
}

/** A fresh URL token: 32 random bytes, base64url (43 characters). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Compares a candidate with the token in time independent of where they differ. */
function tokenMatches(candidate: string, token: Buffer): boolean {
  const given = Buffer.from(candidate, 'utf8');
  return given.length === token.length && timingSafeEqual(given, token);
}

/**
 * The file segments of a request path under the token, decoded, or undefined when any is
 * unsafe: empty (`//`, a trailing `/`), `.` or `..`, or holding a separator or NUL once decoded.
 */
function fileSegments(rawSegments: readonly string[]): string[] | undefined {
  const segments: string[] = [];
  for (const raw of rawSegments) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment === '' || segment === '.' || segment === '..' || /[/\\\0]/.test(segment)) return undefined;
    segments.push(segment);
  }
  return segments;
}

/** The client frame's id when the frame has one (for answering a bad frame). */
function idOf(text: string): number | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const id = (value as { id?: unknown }).id;
    return Number.isSafeInteger(id) ? (id as number) : undefined;
  } catch {
    return undefined;
  }
}

/** Why a frame with an id is not a call. */
function badFrameMessage(text: string): string {
  const frame = JSON.parse(text) as { type?: unknown; channel?: unknown };
  if (frame.type === 'call' && !isCallName(frame.channel)) {
    const channel = typeof frame.channel === 'string' ? JSON.stringify(frame.channel.slice(0, 80)) : typeof frame.channel;
    return `channel: no inspector call is named ${channel}`;
  }
  return 'a call frame is {"type": "call", "id": n, "channel": "<domain>:<verb>", "input": {…}}';
}

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** Refuses an upgrade on the raw socket with an empty answer. */
function refuseUpgrade(socket: Socket, status: number, reason: string): void {
  socket.setTimeout(5_000, () => socket.destroy());
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
}

/** The host as it is written in a URL and a Host header: an IPv6 address in brackets. */
function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** The listening address of the options: 127.0.0.1, or one other IP address (never a wildcard or a name). */
export function listenHost(host: string | undefined): string {
  if (host === undefined) return HOST;
  if (isIP(host) === 0) throw new InspectorServerOptionError(`host must be an IP address of this machine, such as 127.0.0.1, not ${JSON.stringify(host)}`);
  if (host === '0.0.0.0' || host === '::' || /^0*:(0*:)*0*$/.test(host))
    throw new InspectorServerOptionError(
      `host ${host} would listen on every address, and the page must be reached by one name: give the one address to serve on, such as 127.0.0.1`,
    );
  return host;
}

export async function startInspectorServer(options: InspectorServerOptions): Promise<InspectorServer> {
  const host = listenHost(options.host);
  const readOnly = options.readOnly ?? false;
  const token = options.token ?? newToken();
  const tokenBytes = Buffer.from(token, 'utf8');
  const maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  // Resolved once: every served file must lie under this real path (no symlink out of it).
  const rendererRoot = realpathSync(options.rendererDir);
  let origin = '';
  let expectedHost = '';

  /** The path segments after `/<token>/`, or undefined when the path is not under the token. */
  const underToken = (url: string | undefined): string[] | undefined => {
    if (url === undefined || !url.startsWith('/')) return undefined;
    const path = url.split('?', 1)[0] as string;
    const [, candidate = '', ...rest] = path.split('/');
    if (!tokenMatches(candidate, tokenBytes)) return undefined;
    return rest;
  };

  const answer = (res: ServerResponse, status: number, headers: OutgoingHttpHeaders = {}, body?: Buffer): void => {
    res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Length': body?.length ?? 0, ...headers });
    res.end(res.req.method === 'HEAD' ? undefined : body);
  };

  const serveFile = async (res: ServerResponse, segments: readonly string[]): Promise<void> => {
    const candidate = join(rendererRoot, ...segments);
    let real: string;
    try {
      real = await realpath(candidate);
      if (!real.startsWith(rendererRoot + sep) || !(await stat(real)).isFile()) return answer(res, 404);
    } catch {
      return answer(res, 404);
    }
    let body: Buffer;
    try {
      body = await readFile(real);
      // The page learns it is read-only from its own HTML, before its first call.
      if (readOnly && real === join(rendererRoot, 'index.html')) body = markReadOnly(body);
    } catch {
      return answer(res, 404);
    }
    answer(res, 200, { 'Content-Type': CONTENT_TYPES[extname(real).toLowerCase()] ?? 'application/octet-stream' }, body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.headers.host !== expectedHost) return answer(res, 421);
    const rest = underToken(req.url);
    if (rest === undefined) return answer(res, 404);
    // `/<token>`: the page's relative asset URLs need the trailing slash.
    if (rest.length === 0) return answer(res, 308, { Location: `/${token}/` });
    const isPage = rest.length === 1 && rest[0] === '';
    const isSocket = rest.length === 1 && rest[0] === 'ws';
    const segments = isPage ? ['index.html'] : isSocket ? undefined : fileSegments(rest);
    if (!isSocket && segments === undefined) return answer(res, 404);
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(res, 405, { Allow: 'GET, HEAD' });
    if (isSocket) return answer(res, 426, { Upgrade: 'websocket', Connection: 'Upgrade' });
    return serveFile(res, segments as string[]);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) answer(res, 500);
      else res.destroy();
    });
  });
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES, perMessageDeflate: false });

  const onSocket = (socket: WebSocket): void => {
    let session: InspectorSession;
    try {
      session = options.inspector.openSession();
    } catch {
      socket.close(1011, 'the inspector could not open a session');
      return;
    }
    sockets.add(socket);
    const send = (frame: BridgeServerFrame): void => {
      if (socket.readyState !== WebSocket.OPEN) return;
      let text: string;
      try {
        text = JSON.stringify(frame);
      } catch (error) {
        if (frame.type !== 'result') return;
        text = JSON.stringify({
          type: 'result',
          id: frame.id,
          result: errorResult({ code: 'internal/unexpected', message: `the answer could not be sent as JSON: ${(error as Error).message}` }),
        } satisfies BridgeServerFrame);
      }
      // A page that stopped reading must not make the peer hold its output forever.
      if (socket.bufferedAmount > maxBuffered) {
        socket.terminate();
        return;
      }
      socket.send(text);
    };
    session.onEvent((event, payload) => send({ type: 'event', event, payload }));
    socket.on('message', (data, isBinary) => {
      // Frames are JSON text; binary frames are not part of the contract.
      if (isBinary) return;
      const text = textOf(data);
      const frame = decodeClientFrame(text);
      if (frame === undefined) {
        // A frame with an id is answered (the page's call must not wait forever); one without is dropped.
        const id = idOf(text);
        if (id !== undefined) send({ type: 'result', id, result: errorResult({ code: 'inspector/bad-request', message: badFrameMessage(text) }) });
        return;
      }
      if (readOnly && mayChangePeer(frame.channel, frame.input)) {
        send({ type: 'result', id: frame.id, result: errorResult({ code: 'inspector/read-only', message: READ_ONLY_MESSAGE }) });
        return;
      }
      void serveCall(session.handlers, frame.channel, frame.input).then((result) => send({ type: 'result', id: frame.id, result }));
    });
    socket.on('error', () => {
      // ws closes the socket after an error (an oversized or invalid frame); 'close' follows.
    });
    socket.on('close', () => {
      sockets.delete(socket);
      session.close();
    });
  };

  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (req.headers.host !== expectedHost) return refuseUpgrade(socket, 421, 'Misdirected Request');
    const rest = underToken(req.url);
    if (rest === undefined || rest.length !== 1 || rest[0] !== 'ws') return refuseUpgrade(socket, 404, 'Not Found');
    if (req.headers.origin !== origin) return refuseUpgrade(socket, 403, 'Forbidden');
    wss.handleUpgrade(req, socket, head, onSocket);
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  expectedHost = `${urlHost(host)}:${port}`;
  origin = `http://${expectedHost}`;

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/${token}/`,
    origin,
    host,
    readOnly,
    port,
    token,
    get sockets() {
      return sockets.size;
    },
    close() {
      closing ??= (async () => {
        for (const socket of sockets) socket.close(1001, 'the inspector is stopping');
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        // Sockets that do not answer the close handshake in time are cut.
        const cut = setTimeout(() => {
          for (const socket of sockets) socket.terminate();
        }, 1_000);
        await Promise.all([
          stopped,
          ...[...sockets].map(
            (socket) => new Promise<void>((resolve) => (socket.readyState === WebSocket.CLOSED ? resolve() : socket.once('close', () => resolve()))),
          ),
        ]);
        clearTimeout(cut);
        await new Promise<void>((resolve) => wss.close(() => resolve()));
      })();
      return closing;
    },
  };
}
