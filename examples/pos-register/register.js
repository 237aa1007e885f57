#!/usr/bin/env node
// A point-of-sale register (or the back office) on its own SyncMesh peer:
//
//   node register.js --name "Register 1" --data ./data/register-1 \
//        --big-peer http://127.0.0.1:8080 --app-id pos --playground-token <token>
//   node register.js --name "Back office" --role back-office --data ./data/back-office …
//
// It prints the page to sell from and, with --inspect-port, the inspector attached to its peer.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { LogHub, Sync, onlinePlayground } from 'syncmesh';
import { serveInspector } from 'syncmesh/inspector';
import { pageHtml } from './page.js';
import { CATALOG, EVICTION, salesByRegister, sell, subscribe, watchOrders } from './shop.js';

const { values } = parseArgs({
  options: {
    name: { type: 'string', default: 'Register 1' },
    role: { type: 'string', default: 'register' },
    data: { type: 'string' },
    'big-peer': { type: 'string' },
    'app-id': { type: 'string' },
    'playground-token': { type: 'string' },
    port: { type: 'string', default: '0' },
    'inspect-port': { type: 'string' },
  },
});
if (values.role !== 'register' && values.role !== 'back-office') throw new Error('--role is register or back-office');
if (values.data === undefined) throw new Error('--data DIR is required: the register keeps its orders there');
const name = values.name;
const register = values.role === 'register' ? { id: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'), name } : undefined;

// The peer: a store on disk, logged in to the Big Peer, its orders evicted by the Big Peer's TTL flag.
const sync = new Sync({
  persistenceDirectory: values.data,
  logHub: new LogHub({ minimumLogLevel: 'WARN', console: (line) => process.stderr.write(`${line}\n`) }),
  ...(values['big-peer'] === undefined
    ? {}
    : { identity: onlinePlayground({ appID: values['app-id'], token: values['playground-token'], bigPeerURL: values['big-peer'] }) }),
  eviction: EVICTION,
});
subscribe(sync, register?.id);
const orders = watchOrders(sync);
if (values['big-peer'] !== undefined) await sync.startSync();

// The inspector, attached to this very peer (development; read-only is safe to leave on).
const inspector = values['inspect-port'] === undefined ? undefined : await serveInspector(sync, { port: Number(values['inspect-port']) });

let lastSold;
const server = createServer((req, res) => {
  const answer = (status, type, body, headers = {}) => {
    res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
    res.end(body);
  };
  if (req.method === 'GET' && req.url === '/') return answer(200, 'text/html; charset=utf-8', pageHtml({ name, role: values.role, catalog: CATALOG }));
  if (req.method === 'GET' && req.url === '/state.json') {
    void salesByRegister(sync).then((sales) => {
      const state = {
        orders: orders.latest(),
        sales,
        lastSold,
        sync: sync.isSyncActive ? 'Syncing with the Big Peer' : 'Offline: sales are kept and sync later',
      };
      answer(200, 'application/json', JSON.stringify(state));
    });
    return;
  }
  if (req.method === 'POST' && req.url === '/sell' && register !== undefined) {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk) => (body += chunk.slice(0, 1024)));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      sell(sync, register, [{ sku: form.get('sku') ?? '', qty: Number(form.get('qty') ?? '1') }]).then(
        (order) => {
          lastSold = order;
          answer(303, 'text/plain', '', { Location: '/' });
        },
        (error) => answer(400, 'text/plain; charset=utf-8', `Not sold: ${error.message}`),
      );
    });
    return;
  }
  answer(404, 'text/plain', 'Not found');
});
server.listen(Number(values.port), '127.0.0.1', () => {
  console.log(`POS ${values.role} "${name}": http://127.0.0.1:${server.address().port}/`);
  if (inspector !== undefined) console.log(`Inspector: ${inspector.url}`);
});

const stop = async () => {
  server.close();
  await inspector?.close();
  orders.cancel();
  await sync.stopSync();
  sync.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
