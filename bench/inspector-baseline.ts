/**
 * The inspector suite's baseline page: the least a page can do to show data from a peer over a
 * WebSocket, served the way the inspector is (node:http on 127.0.0.1, a random token in the path,
 * the socket at `/<token>/ws`, `ws` on the server side).
 *
 * The page is static HTML with a header, two tabs (`role="tab"`: Home and Data) and a
 * `main[role="tabpanel"]`, and one inline script of a few lines: no framework, no bundle. On
 * load it opens the socket and asks for the Home panel's rows; a click on a tab asks for that
 * tab's rows. The server answers each request with the same rows (documents of
 * bench/documents.ts, as JSON), and the page builds a table of them in `main`, labelled by the
 * tab, with a caption naming the collection (`orders`). The suite measures it with the same
 * probe (inspector-page.ts) as the inspector: load → first contentful paint, load → table
 * painted, and click → table painted.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

export interface BaselineServer {
  /** `http://127.0.0.1:<port>/<token>/` */
  readonly url: string;
  close(): Promise<void>;
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Baseline</title>
<link rel="icon" href="data:,">
<style>
body { margin: 0; font: 13px system-ui, sans-serif; }
header { display: flex; gap: 16px; align-items: center; padding: 8px 16px; border-bottom: 1px solid #ccc; }
h1 { font-size: 15px; margin: 0; }
main { padding: 16px; }
table { border-collapse: collapse; }
td, th { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: left; }
</style>
</head>
<body>
<header>
<h1>Baseline page</h1>
<div role="tablist" aria-label="Panels">
<button type="button" role="tab" id="panel-tab-home">Home</button>
<button type="button" role="tab" id="panel-tab-data">Data</button>
</div>
</header>
<main id="panel-main" role="tabpanel" aria-labelledby="panel-tab-none"><p>Connecting…</p></main>
<script>
const socket = new WebSocket(location.href.replace(/^http/, 'ws') + 'ws');
const ask = (panel) => socket.send(JSON.stringify({ panel }));
socket.onopen = () => ask('home');
socket.onmessage = (message) => {
  const { panel, collection, rows } = JSON.parse(message.data);
  const main = document.getElementById('panel-main');
  const table = document.createElement('table');
  table.createCaption().textContent = collection;
  const columns = Object.keys(rows[0] ?? {});
  const head = table.createTHead().insertRow();
  for (const column of columns) head.appendChild(document.createElement('th')).textContent = column;
  const body = table.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    for (const column of columns) tr.insertCell().textContent = String(row[column]);
  }
  main.replaceChildren(table);
  main.setAttribute('aria-labelledby', 'panel-tab-' + panel);
};
for (const tab of document.querySelectorAll('[role="tab"]')) tab.onclick = () => ask(tab.id.slice('panel-tab-'.length));
</script>
</body>
</html>
`;

/** Starts the baseline server; each request on its socket is answered with `rows` of `collection`. */
export async function startBaselineServer(collection: string, rows: readonly object[]): Promise<BaselineServer> {
  const token = randomBytes(16).toString('base64url');
  const page = Buffer.from(PAGE, 'utf8');
  const server = createServer((req, res) => {
    if (req.url === `/${token}/` && req.method === 'GET') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': page.length, 'Cache-Control': 'no-store' });
      res.end(page);
      return;
    }
    res.writeHead(404, { 'Content-Length': 0 });
    res.end();
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on('upgrade', (req, socket, head) => {
    if (req.url !== `/${token}/ws`) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', (data) => {
        const { panel } = JSON.parse(String(data)) as { panel: string };
        ws.send(JSON.stringify({ panel, collection, rows }));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${token}/`,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
