/**
 * TEST FIXTURE: a TCP relay on 127.0.0.1 in front of a server, which a test can freeze (every
 * byte either way is dropped from then on, the connections stay open: a peer that stops
 * answering) or cut (it stops listening and closes every connection: a peer out of reach).
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface TcpRelay {
  /** `http://127.0.0.1:<port>`: the server's base URL through the relay. */
  readonly url: string;
  /** From now on, drops every byte either way and keeps the connections open. */
  freeze(): void;
  /** Stops listening and closes every connection. */
  cut(): Promise<void>;
}

/** A relay to the server at `target` (an http URL on 127.0.0.1). */
export async function startTcpRelay(target: string): Promise<TcpRelay> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let frozen = false;
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (data: Buffer) => {
      if (!frozen) upstream.write(data);
    });
    upstream.on('data', (data: Buffer) => {
      if (!frozen) client.write(data);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    freeze: () => {
      frozen = true;
    },
    cut: () => {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}
