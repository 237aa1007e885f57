/**
 * For tests and benchmarks: several Big Peer nodes behind one address, as a TCP load balancer
 * (HAProxy, nginx `stream`, a cloud load balancer) puts them. Each new connection goes to the
 * next node in turn; a node that refuses the connection (stopped, killed) is passed over and
 * left out for a while, and the connection tries the next. With a health check, only nodes
 * whose readiness endpoint answered 200 last time get new connections (a draining node leaves
 * the rotation). Bytes are relayed as they are, so HTTP and WebSocket (with TLS, too) pass unchanged.
 */
import { request } from 'node:http';
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
  /** Asks each node `GET path` every `everyMs`; only those that answered 200 get connections (none: the connection is cut). */
  readonly healthCheck?: { readonly path: string; readonly everyMs: number };
}

export class TcpBalancer {
  readonly #server: Server;
  readonly #backends: Backend[];
  readonly #downUntil = new Map<string, number>();
  readonly #sockets = new Set<Socket>();
  readonly #downForMs: number;
  readonly #connectTimeoutMs: number;
  readonly #healthCheck: TcpBalancerOptions['healthCheck'];
  /** The nodes whose last health check answered 200 (all, without a health check). */
  #ready = new Set<string>();
  #checking: Promise<void> | undefined;
  #closed = false;
  #next = 0;

  private constructor(options: TcpBalancerOptions) {
    this.#backends = [...options.backends];
    this.#downForMs = options.downForMs ?? 1_000;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 2_000;
    this.#healthCheck = options.healthCheck;
    this.#server = createServer((client) => this.#accept(client));
    if (this.#healthCheck !== undefined) this.#checking = this.#check(this.#healthCheck);
  }

  /** The nodes that get new connections now, as `http://host:port`. */
  ready(): string[] {
    return this.#backends.filter((b) => this.#isReady(b)).map((b) => `http://${keyOf(b)}`);
  }

  #isReady(backend: Backend): boolean {
    return this.#healthCheck === undefined || this.#ready.has(keyOf(backend));
  }

  async #check(health: { readonly path: string; readonly everyMs: number }): Promise<void> {
    while (!this.#closed) {
      const answers = await Promise.all(this.#backends.map((b) => askReady(b, health.path, Math.max(health.everyMs, 500))));
      this.#ready = new Set(this.#backends.filter((_, i) => answers[i]).map(keyOf));
      await new Promise((resolve) => setTimeout(resolve, health.everyMs));
    }
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

  /** The next ready node in turn that is not left out; if all ready ones are, the next ready one all the same. */
  #pick(): Backend | undefined {
    const now = Date.now();
    for (let i = 0; i < this.#backends.length; i++) {
      const backend = this.#backends[(this.#next + i) % this.#backends.length] as Backend;
      if (this.#isReady(backend) && (this.#downUntil.get(keyOf(backend)) ?? 0) <= now) {
        this.#next = (this.#next + i + 1) % this.#backends.length;
        return backend;
      }
    }
    if (this.#healthCheck !== undefined) return this.#backends.find((b) => this.#isReady(b));
    const backend = this.#backends[this.#next % this.#backends.length];
    this.#next = (this.#next + 1) % Math.max(1, this.#backends.length);
    return backend;
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    await this.#checking;
  }
}

function keyOf(backend: Backend): string {
  return `${backend.host}:${backend.port}`;
}

/** Does the node answer `GET path` with 200 within `timeoutMs`? */
function askReady(backend: Backend, path: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: backend.host, port: backend.port, path, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
