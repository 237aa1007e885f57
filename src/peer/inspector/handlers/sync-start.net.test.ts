/**
 * `sync:start` as the overview and the mesh see it: while logging in, and when the start fails
 * because the listen port is taken. Network on 127.0.0.1 only.
 */
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { onlinePlayground, onlineWithAuthentication } from '../../auth/identity.ts';
import { inspectorKit, type InspectorKit } from '../../../testing/inspector/test-kit.ts';

let kit: InspectorKit | undefined;
const servers: Server[] = [];
afterEach(async () => {
  kit?.dispose();
  kit = undefined;
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

async function listening<S extends Server>(server: S): Promise<S & { port: number }> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return Object.assign(server, { port: (server.address() as AddressInfo).port });
}

describe('sync:start seen from the overview and the mesh', () => {
  it('says sync is on and the Big Peer connecting while the login is still in flight, and off again once the start failed', async () => {
    const pending: ServerResponse[] = [];
    let asked: () => void = () => {};
    const loginAsked = new Promise<void>((resolve) => (asked = resolve));
    const bigPeer = await listening(
      createHttpServer((_req, res) => {
        pending.push(res); // never answers
        asked();
      }),
    );
    kit = inspectorKit({ sync: { identity: onlinePlayground({ appID: 'app', token: 't', bigPeerURL: `http://127.0.0.1:${bigPeer.port}` }) } });
    expect((await kit.call('overview:get')).bigPeer.state).toBe('stopped');
    const start = kit.call('sync:start').catch((e: unknown) => e);
    await loginAsked;
    const overview = await kit.call('overview:get');
    expect([overview.syncActive, overview.bigPeer.state]).toEqual([true, 'connecting']);
    for (const res of pending) res.destroy(); // the login fails: the start fails
    expect(await start).toMatchObject({ error: { code: expect.stringMatching(/^auth\//) } });
    const after = await kit.call('overview:get');
    expect([after.syncActive, after.bigPeer.state]).toEqual([false, 'stopped']);
  });

  it('answers sync/listen-failed when the listen port is taken, and leaves no address connecting in the mesh', async () => {
    const busy = await listening(createTcpServer());
    kit = inspectorKit({
      sync: {
        identity: onlineWithAuthentication({
          appID: 'app',
          bigPeerURL: 'http://127.0.0.1:9',
          provider: 'p',
          authHandler: { authenticationRequired: () => {}, authenticationExpiringSoon: () => {} },
        }),
        sync: { listen: { port: busy.port } },
      },
    });
    const error = await kit.fail('sync:start');
    expect(error.code).toBe('sync/listen-failed');
    expect(error.message).toMatch(/EADDRINUSE/);
    const overview = await kit.call('overview:get');
    expect([overview.syncActive, overview.bigPeer.state]).toEqual([false, 'stopped']);
    expect((await kit.call('mesh:get')).connections.filter((c) => c.state !== 'closed')).toEqual([]);
  });
});
