/**
 * The browser mode serves nothing without the secret token of the URL it printed: no page, no
 * asset, no socket. A peer offline (no Big Peer) is enough for this.
 */
import WebSocket from 'ws';
import { allowConsoleErrors, expect, openInspector, test } from './fixtures.ts';
import { createMesh, type InspectedPeer } from './processes.ts';

const mesh = createMesh('token');
let peer: InspectedPeer;

test.beforeAll(async () => {
  peer = await mesh.startPeer('offline');
});
test.afterAll(() => mesh.stop());

/** A token of the same length and alphabet as the real one, but not it. */
function wrongToken(token: string): string {
  const last = token.at(-1) === 'A' ? 'B' : 'A';
  return `${token.slice(0, -1)}${last}`;
}

/** What a WebSocket upgrade to `path` gets: `open`, or the HTTP status that refused it. */
function upgrade(path: string, origin: string): Promise<'open' | number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${peer.origin.replace(/^http/, 'ws')}${path}`, { origin });
    socket.once('open', () => {
      socket.close();
      resolve('open');
    });
    socket.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('error', (error) => reject(error));
  });
}

test('the page with its token loads and links to the peer', async ({ page }) => {
  const response = await page.goto(peer.inspectorUrl);
  expect(response?.status()).toBe(200);
  await openInspector(page, peer);
  await expect(page.getByRole('heading', { name: 'SyncMesh Inspector' })).toBeVisible();
});

test('without the token, or with a wrong one, every path is 404 with an empty body', async ({ request }) => {
  const wrong = wrongToken(peer.token);
  const paths = [
    '/',
    '/index.html',
    '/ws',
    `/${wrong}/`,
    `/${wrong}`,
    `/${wrong}/index.html`,
    `/${peer.token.slice(0, -1)}/`,
    `/${peer.token}x/`,
    `/${peer.token.toLowerCase() === peer.token ? peer.token.toUpperCase() : peer.token.toLowerCase()}/`,
    `/x/${peer.token}/`,
    `/?token=${peer.token}`,
  ];
  for (const path of paths) {
    const response = await request.get(`${peer.origin}${path}`, { maxRedirects: 0 });
    expect(response.status(), `GET ${path}`).toBe(404);
    expect((await response.body()).length, `the body of GET ${path}`).toBe(0);
    expect(response.headers()['content-type'], `the content type of GET ${path}`).toBeUndefined();
  }
  // The right token serves the page.
  const page = await request.get(peer.inspectorUrl);
  expect(page.status()).toBe(200);
  expect(await page.text()).toContain('<div id="root">');
});

test('a browser sent to the server without the token gets nothing of the inspector', async ({ page }) => {
  allowConsoleErrors(page, /status of 404/);
  for (const url of [`${peer.origin}/`, `${peer.origin}/${wrongToken(peer.token)}/`]) {
    const responded = page.waitForResponse(url);
    // An empty 404 makes Chromium show its own error page instead.
    await expect(page.goto(url), url).rejects.toThrow(/ERR_HTTP_RESPONSE_CODE_FAILURE/);
    const response = await responded;
    expect(response.status(), url).toBe(404);
    await expect(page.locator('#root')).toHaveCount(0);
    await expect(page.getByText('SyncMesh')).toHaveCount(0);
  }
});

test('the socket is refused without the token, with a wrong one, and from another origin', async () => {
  expect(await upgrade('/ws', peer.origin)).toBe(404);
  expect(await upgrade(`/${wrongToken(peer.token)}/ws`, peer.origin)).toBe(404);
  expect(await upgrade(`/${peer.token}/ws`, 'http://evil.example')).toBe(403);
  expect(await upgrade(`/${peer.token}/ws`, 'http://127.0.0.1:1')).toBe(403);
  expect(await upgrade(`/${peer.token}/ws`, peer.origin)).toBe('open');
});

test('the page itself cannot open a socket under a wrong token', async ({ page }) => {
  allowConsoleErrors(page, /WebSocket connection to .* failed/);
  await openInspector(page, peer);
  const outcome = await page.evaluate(
    async (url) => {
      return new Promise<string>((resolve) => {
        const socket = new WebSocket(url);
        socket.onopen = () => resolve('open');
        socket.onerror = () => resolve('refused');
      });
    },
    `${peer.origin.replace(/^http/, 'ws')}/${wrongToken(peer.token)}/ws`,
  );
  expect(outcome).toBe('refused');
});
