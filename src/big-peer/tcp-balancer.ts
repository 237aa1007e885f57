/**
 * For tests and benchmarks: several Big Peer nodes behind one address, as a TCP load balancer
 * (HAProxy, nginx `stream`, a cloud load balancer) puts them. Each new connection goes to the
 * next node in turn; a node that refuses the connection (stopped, killed) is passed over and
 * left out for a while, and the connection tries the next. Bytes are relayed as they are, so
 * HTTP and WebSocket (with TLS, too) pass unchanged.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

export interface Backend {
  readonly host: string;
  readonly port: number;
}

export interface TcpBalancerOptions {
  readonly backends: readonly Backend[];
  /** How long a node that refused a connection is left out (default 1 s). */
  readonly downForMs?: number;
  /** A connection attempt to a node fails after this long (default 2 s). */
  readonly connectTimeoutMs?: number;
}

export class TcpBalancer {
  readonly #server: Server;
  readonly #backends: Backend[];
  readonly #downUntil = new Map<string, number>();
  readonly #sockets = new Set<Socket>();
  readonly #downForMs: number;
  readonly #connectTimeoutMs: number;
  #next = 0;

  private constructor(options: TcpBalancerOptions) {
    this.#backends = [...options.backends];
    this.#downForMs = options.downForMs ?? 1_000;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 2_000;
    this.#server = createServer((client) => this.#accept(client));
  }

  /** Listens on 127.0.0.1 (a free port unless given). */
  static async listen(options: TcpBalancerOptions, port = 0): Promise<TcpBalancer> {
    const balancer = new TcpBalancer(options);
    await new Promise<void>((resolve, reject) => {
      balancer.#server.once('error', reject);
      balancer.#server.listen(port, '127.0.0.1', () => resolve());
    });
    return balancer;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** `http://127.0.0.1:port`: the one address of every node. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Connections relayed now, client and node sides each counted. */
  get openSockets(): number {
    return this.#sockets.size;
  }

  setBackends(backends: readonly Backend[]): void {
    this.#backends.splice(0, this.#backends.length, ...backends);
  }

  #accept(client: Socket): void {
    this.#track(client);
    client.pause();
    client.on('error', () => client.destroy());
    this.#connect(client, 0);
  }

  #connect(client: Socket, tried: number): void {
    if (client.destroyed) return;
    if (tried >= this.#backends.length) {
      client.destroy();
      return;
    }
    const backend = this.#pick();
    if (backend === undefined) {
      client.destroy();
      return;
    }
    const node = connect({ host: backend.host, port: backend.port });
    this.#track(node);
    node.setTimeout(this.#connectTimeoutMs, () => node.destroy(new Error('connect timeout')));
    const failed = (): void => {
      node.destroy();
      this.#downUntil.set(keyOf(backend), Date.now() + this.#downForMs);
      this.#connect(client, tried + 1);
    };
    node.once('error', failed);
    node.once('connect', () => {
      node.setTimeout(0);
      node.removeListener('error', failed);
      node.on('error', () => client.destroy());
      client.on('close', () => node.destroy());
      node.on('close', () => client.destroy());
      client.pipe(node);
      node.pipe(client);
      client.resume();
    });
  }

  /** The next node in turn that is not left out; if all are, the next in turn all the same. */
  #pick(): Backend | undefined {
    const now = Date.now();
    for (let i = 0; i < this.#backends.length; i++) {
      const backend = this.#backends[(this.#next + i) % this.#backends.length] as Backend;
      if ((this.#downUntil.get(keyOf(backend)) ?? 0) <= now) {
        this.#next = (this.#next + i + 1) % this.#backends.length;
        return backend;
      }
    }
    const backend = this.#backends[this.#next % this.#backends.length];
    this.#next = (this.#next + 1) % Math.max(1, this.#backends.length);
    return backend;
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
  }

  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

function keyOf(backend: Backend): string {
  return `${backend.host}:${backend.port}`;
}
