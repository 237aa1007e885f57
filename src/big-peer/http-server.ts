/**
 * The Big Peer's HTTP(S) server: a router of exact paths and methods, JSON bodies of at most
 * 1 MiB, a deadline per request, and error answers that are always JSON `{error: {code,
 * message}}` (or the route's own shape), never a stack trace.
 *
 *   unknown path → 404, wrong method → 405 (with Allow), body over the limit → 413,
 *   body not JSON → 400, not answered within the deadline → 408, the store cannot serve now
 *   (its database unreachable, closing) → 503 with Retry-After, unexpected fault → 500.
 *
 * close() stops accepting connections, lets the requests in flight finish (their connections
 * close after the answer), and cuts whatever is still open after the grace period. While the
 * Big Peer drains (`draining`), it still serves, but every answer closes its connection, so that
 * clients and load balancers open their next one elsewhere.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { LOG_EVENTS } from '../shared/log.ts';
import { SyncError, type Logger, type Timers } from '../peer/host.ts';
import { HttpError } from './http-error.ts';
import { errorMessage } from '../shared/error-message.ts';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Store errors that say it cannot serve now, not that the request is wrong: 503. */
const UNAVAILABLE_CODES: ReadonlySet<string> = new Set(['store/unavailable', 'store/busy', 'store/closed']);
/**
 * An answer sent before the request body was read to its end closes the connection: at most
 * this much more of the body is read (and dropped) after the answer, then the socket is cut.
 */
const MAX_DRAIN_BYTES = MAX_BODY_BYTES;
/** ... and the socket is cut this long after the answer at the latest. */
const DRAIN_MS = 2_000;

export interface RequestContext {
  readonly req: IncomingMessage;
  readonly method: string;
  readonly path: string;
  /** The body as JSON. @throws HttpError 413 (too large) or 400 (not JSON). */
  json(): Promise<unknown>;
}

export interface Reply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON body; or `text`, a plain-text one; or neither (204). */
  readonly json?: unknown;
  readonly text?: string;
}

export type Handler = (ctx: RequestContext) => Promise<Reply>;

export interface Route {
  readonly paths: readonly string[];
  readonly methods: Readonly<Record<string, Handler>>;
  /** The answer of an error on this route; default `{error: {code, message}}`. */
  readonly errorReply?: (error: HttpError) => Reply;
  /** Headers of every answer on this route, errors included. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface HttpServerOptions {
  readonly host: string;
  readonly port: number;
  readonly tls?: { readonly key: Buffer | string; readonly cert: Buffer | string };
  readonly routes: readonly Route[];
  readonly timers: Timers;
  readonly logger: Logger;
  readonly requestTimeoutMs: number;
  /**
   * Told of each request as it starts, with its method and its route's path (`unmatched` for an
   * unknown path: never the raw URL); the function it returns is told the status of the answer
   * once the exchange ends (undefined: the connection ended before an answer).
   */
  readonly observe?: (method: string, route: string) => (status: number | undefined) => void;
}

/** The route label of a request whose path matches no route. */
export const UNMATCHED_ROUTE = 'unmatched';

export function jsonError(error: HttpError): Reply {
  return { status: error.status, headers: error.headers, json: { error: { code: error.code, message: error.message } } };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tooLarge = (): HttpError => new HttpError(413, 'http/payload-too-large', `the request body is larger than ${MAX_BODY_BYTES} bytes`);
    const refuse = (): void => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      // The rest of the body is not read: the answer closes the connection (see #send).
      req.pause();
      reject(tooLarge());
    };
    const declared = Number(req.headers['content-length']);
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) refuse();
      else chunks.push(chunk);
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', () => reject(new HttpError(400, 'http/bad-request', 'the request body was cut off')));
    if (declared > MAX_BODY_BYTES) refuse();
  });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = (await readBody(req)).toString('utf8');
  if (text.trim() === '') throw new HttpError(400, 'http/bad-request', 'the request body is empty; send a JSON object');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, 'http/bad-request', `the request body is not JSON: ${(error as Error).message}`);
  }
}

export function formatUrl(scheme: string, host: string, port: number): string {
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The answer to a request Node's parser refused (bad request line, headers too large…). */
function clientErrorStatus(error: Error & { code?: string }): [number, string, string] {
  if (error.code === 'HPE_HEADER_OVERFLOW') return [431, 'Request Header Fields Too Large', 'the request headers are too large'];
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'Request Timeout', 'the request was not received in time'];
  return [400, 'Bad Request', 'the request is not valid HTTP/1.1'];
}

export class HttpServer {
  readonly server: Server;
  /**
   * What this server serves (the Big Peer): held here, so that it lives as long as the server
   * listens even when its creator drops every other reference to it.
   */
  owner: unknown;
  readonly #options: HttpServerOptions;
  readonly #routes = new Map<string, Route>();
  #closing = false;
  /** Answers carry `Connection: close` (the Big Peer drains). */
  draining = false;

  private constructor(options: HttpServerOptions) {
    this.#options = options;
    for (const route of options.routes) for (const path of route.paths) this.#routes.set(path, route);
    const handler = (req: IncomingMessage, res: ServerResponse): void => void this.#handle(req, res);
    this.server = options.tls === undefined ? createHttpServer(handler) : createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler);
    this.server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
      socket.on('error', () => socket.destroy());
      if (error.code === 'ECONNRESET' || !socket.writable || (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage?.headersSent === true) {
        socket.destroy();
        return;
      }
      const [status, text, message] = clientErrorStatus(error);
      const body = JSON.stringify({ error: { code: status === 408 ? 'http/timeout' : 'http/bad-request', message } });
      socket.end(
        `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
        () => socket.destroy(),
      );
    });
  }

  /** Starts listening; resolves once the port is bound. */
  static async listen(options: HttpServerOptions): Promise<HttpServer> {
    const http = new HttpServer(options);
    await new Promise<void>((resolve, reject) => {
      http.server.once('error', reject);
      http.server.listen(options.port, options.host, () => {
        http.server.removeListener('error', reject);
        resolve();
      });
    });
    return http;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return formatUrl(this.#options.tls === undefined ? 'http' : 'https', this.#options.host, this.port);
  }

  get isClosing(): boolean {
    return this.#closing;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = URL.parse(req.url ?? '/', 'http://big-peer.invalid')?.pathname ?? '/';
    const route = this.#routes.get(path);
    const errorReply = (error: HttpError): Reply => (route?.errorReply ?? jsonError)(error);
    const { timers, requestTimeoutMs, observe } = this.#options;
    if (observe !== undefined) {
      const ended = observe(method, route === undefined ? UNMATCHED_ROUTE : path);
      res.once('close', () => ended(res.headersSent ? res.statusCode : undefined));
    }
    const deadline = timers.setTimeout(() => {
      this.#send(res, route, errorReply(new HttpError(408, 'http/timeout', `the request was not answered within ${requestTimeoutMs} ms`)), true);
    }, requestTimeoutMs);
    res.once('close', () => timers.clearTimeout(deadline));
    let reply: Reply;
    try {
      if (route === undefined) throw new HttpError(404, 'http/not-found', `no endpoint ${path}`);
      const handler = route.methods[method];
      if (handler === undefined) {
        const allow = Object.keys(route.methods).join(', ');
        throw new HttpError(405, 'http/method-not-allowed', `${path} takes ${allow}, not ${method}`, { Allow: allow });
      }
      reply = await handler({ req, method, path, json: () => readJson(req) });
    } catch (error) {
      if (error instanceof HttpError) reply = errorReply(error);
      else if (error instanceof SyncError && UNAVAILABLE_CODES.has(error.code)) {
        // Not a fault of the request: it may be tried again, here or on another node.
        reply = errorReply(new HttpError(503, error.code, error.message, { 'Retry-After': '1' }));
      } else {
        const message = errorMessage(error);
        this.#options.logger.error(LOG_EVENTS.bigPeerRequestFailed, { method, path, status: 500, error: message });
        reply = errorReply(new HttpError(500, 'internal/unexpected', `the request failed inside the Big Peer: ${message}`));
      }
    }
    this.#send(res, route, reply, false);
  }

  #send(res: ServerResponse, route: Route | undefined, reply: Reply, close: boolean): void {
    if (res.headersSent || res.destroyed) return;
    const headers: Record<string, string> = { 'X-Content-Type-Options': 'nosniff', ...route?.headers, ...reply.headers };
    // An answer before the body was read to its end (401, 404, 413…): the rest is not read.
    const unread = !res.req.complete;
    if (close || this.#closing || this.draining || unread) headers.Connection = 'close';
    if (unread) this.#cutAfter(res);
    let body = '';
    if (reply.text !== undefined) {
      body = reply.text;
      headers['Content-Type'] ??= 'text/plain; charset=utf-8';
    } else if (reply.json !== undefined) {
      body = JSON.stringify(reply.json);
      headers['Content-Type'] = 'application/json; charset=utf-8';
    }
    if (reply.status !== 204) headers['Content-Length'] = String(Buffer.byteLength(body));
    res.writeHead(reply.status, headers);
    res.end(reply.status === 204 ? undefined : body);
  }

  /** After the answer: drop at most MAX_DRAIN_BYTES more of the request, then cut the connection. */
  #cutAfter(res: ServerResponse): void {
    const { req } = res;
    const socket = req.socket;
    res.once('finish', () => {
      let drained = 0;
      const cut = this.#options.timers.setTimeout(() => socket.destroy(), DRAIN_MS);
      socket.once('close', () => this.#options.timers.clearTimeout(cut));
      req.removeAllListeners('data');
      req.on('data', (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > MAX_DRAIN_BYTES) socket.destroy();
      });
      req.on('end', () => socket.destroy());
      req.resume();
    });
  }

  /** Stops accepting, lets requests in flight finish, cuts connections still open after `graceMs`. */
  async close(graceMs: number): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const { timers } = this.#options;
    const cut = timers.setTimeout(() => this.server.closeAllConnections(), graceMs);
    await closed;
    timers.clearTimeout(cut);
  }

  /** Cuts every connection now, requests in flight included (a drain cut short). */
  cutNow(): void {
    this.server.closeAllConnections();
  }
}
