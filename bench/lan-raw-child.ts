/**
 * The raw side of the `lan` suite: bare `ws` between two network namespaces, in processes of their
 * own like the peers they are compared with. Run by `lan.bench.ts` through `ip netns exec` as
 * `node bench/lan-raw-child.ts '<json>'`; JSON lines in and out; exits when its stdin closes.
 *
 * - `{ "mode": "serve", "host": H, "greeting": doc? }`: a server on H (a free port), printing
 *   `{ type: 'listening', port }`. It sends `[greeting]` to each client that connects; on the line
 *   `{ type: 'send', docs }` it sends the documents to its clients as JSON frames of 500 and
 *   prints `{ type: 'sent', startedAt }` (taken after parsing the line, before the first send).
 * - `{ "mode": "fetch", "url": U, "once": n? }`: a client of U, printing `{ type: 'open' }`. With
 *   `once`, it prints `{ type: 'done', at, received }` when it has parsed n documents and exits;
 *   otherwise each line `{ type: 'expect', count }` starts a count (acknowledged with
 *   `{ type: 'expecting' }`) that prints `done` when it reaches `count`.
 */
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { jsonLine, onLines } from '../src/shared/json-lines.ts';

/** Documents per frame: the Big Peer's and the replicator's own chunk size. */
const FRAME_DOCS = 500;

interface ServeConfig {
  readonly mode: 'serve';
  readonly host: string;
  readonly greeting?: unknown;
}
interface FetchConfig {
  readonly mode: 'fetch';
  readonly url: string;
  readonly once?: number;
}

const now = (): number => performance.timeOrigin + performance.now();
const print = (message: object): void => void process.stdout.write(jsonLine(message));
const textOf = (data: RawData): string =>
  Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8');

const config = JSON.parse(process.argv[2] ?? '{}') as ServeConfig | FetchConfig;
process.stdin.on('end', () => process.exit(0));

if (config.mode === 'serve') {
  const wss = new WebSocketServer({ host: config.host, port: 0, perMessageDeflate: false });
  wss.on('listening', () => print({ type: 'listening', port: (wss.address() as { port: number }).port }));
  wss.on('connection', (socket) => {
    if (config.greeting !== undefined) socket.send(JSON.stringify([config.greeting]));
  });
  onLines(process.stdin, (line) => {
    const message = JSON.parse(line) as { type: string; docs: unknown[] };
    if (message.type !== 'send') return;
    const startedAt = now();
    for (let i = 0; i < message.docs.length; i += FRAME_DOCS) {
      const frame = JSON.stringify(message.docs.slice(i, i + FRAME_DOCS));
      for (const client of wss.clients) client.send(frame);
    }
    print({ type: 'sent', startedAt });
  });
} else if (config.mode === 'fetch') {
  const ws = new WebSocket(config.url, { perMessageDeflate: false });
  let received = 0;
  let target = config.once ?? Number.POSITIVE_INFINITY;
  ws.on('open', () => print({ type: 'open' }));
  ws.on('error', (error) => {
    print({ type: 'error', error: error.message });
    process.exit(1);
  });
  ws.on('message', (data: RawData) => {
    received += (JSON.parse(textOf(data)) as unknown[]).length;
    if (received < target) return;
    print({ type: 'done', at: now(), received });
    if (config.once !== undefined) process.exit(0);
    target = Number.POSITIVE_INFINITY;
  });
  onLines(process.stdin, (line) => {
    const message = JSON.parse(line) as { type: string; count: number };
    if (message.type !== 'expect') return;
    received = 0;
    target = message.count;
    print({ type: 'expecting', count: message.count });
  });
} else {
  throw new Error('usage: lan-raw-child.ts \'{"mode":"serve","host":H}\' | \'{"mode":"fetch","url":U}\'');
}
