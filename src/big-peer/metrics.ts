/**
 * The Big Peer's Prometheus metrics (`GET /metrics`, docs/operations.md): one prom-client
 * `Registry` per Big Peer, never the process-wide default one, since tests run many Big Peers in
 * one process. Counts kept elsewhere (the Sync's replication traffic, the store's last txn_id,
 * the writers waiting for the write slot, the sessions open) are read when a scrape asks.
 *
 * Label values come from small fixed sets (a route's path, never the raw URL; a status class; a
 * known close code or `other`; an originator), so the number of series stays bounded whatever
 * clients send.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ORIGINATORS, type Originator } from '../shared/transactions.ts';

/** Replication totals of the Big Peer's Sync (`sync.traffic`). */
export interface TrafficTotals {
  readonly bytesSent: number;
  readonly bytesReceived: number;
  readonly docsSent: number;
  readonly docsReceived: number;
}

/** What the metrics read from the store: a narrow view, so that any storage behind it fits. */
export interface MetricsStore {
  readonly lastTxnId: number;
  readonly writeSlot: { readonly waiting: number };
  onBlockedWait(listener: (wait: { readonly originator: Originator; readonly waitedMs: number }) => void): () => void;
}

export interface MetricsSources {
  readonly store: MetricsStore;
  readonly traffic: () => TrafficTotals;
  /** WebSocket sessions open now, announced or not. */
  readonly sessions: () => number;
  /** Peers with an accepted (announced) session now. */
  readonly peers: () => number;
  readonly draining: () => boolean;
}

export interface MetricsOptions {
  /**
   * Adds prom-client's process metrics (CPU, memory, event loop lag, GC…). Once per process: they
   * watch the whole process, and their observers are never released (the CLI sets it). Their
   * names are prom-client's standard ones (`process_…`, `nodejs_…`), without the prefix.
   */
  readonly processMetrics?: boolean;
}

export const METRICS_PREFIX = 'syncmesh_';

/** Seconds: from a quick read to the request deadline (30 s by default). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
/** Close codes the Big Peer and its peers use (docs/http-api.md); any other is counted as `other`. */
const CLOSE_CODES = new Set([1000, 1001, 1002, 1003, 1005, 1006, 1007, 1008, 1009, 1011, 1013, 4400, 4401, 4408, 4409]);

/** `2xx`…`5xx`; `none` when the connection ended before an answer. */
export function statusClass(status: number | undefined): string {
  return status === undefined ? 'none' : `${Math.floor(status / 100)}xx`;
}

export class BigPeerMetrics {
  readonly registry = new Registry();
  readonly #requestSeconds: Histogram<'method' | 'route' | 'status_class'>;
  readonly #inFlight: Gauge;
  readonly #opened: Counter;
  readonly #closed: Counter<'code'>;
  readonly #offBlocked: () => void;

  constructor(sources: MetricsSources, options: MetricsOptions = {}) {
    const registers = [this.registry];
    const name = (n: string): string => `${METRICS_PREFIX}${n}`;
    /** A counter that follows a total kept elsewhere: each scrape adds what it grew by. */
    const following = (n: string, help: string, read: () => number): void => {
      let seen = 0;
      new Counter({
        name: name(n),
        help,
        registers,
        collect() {
          const now = read();
          if (now > seen) this.inc(now - seen);
          seen = Math.max(seen, now);
        },
      });
    };
    const reading = (n: string, help: string, read: () => number): void => {
      new Gauge({
        name: name(n),
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    };

    this.#requestSeconds = new Histogram({
      name: name('http_request_duration_seconds'),
      help: 'HTTP requests by method, route (the path of the endpoint; unmatched for an unknown path) and status class, with their duration until the answer was sent',
      labelNames: ['method', 'route', 'status_class'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.#inFlight = new Gauge({ name: name('http_requests_in_flight'), help: 'HTTP requests being answered now', registers });

    reading('websocket_sessions', 'WebSocket sessions open now, announced or still waiting for their announcement', sources.sessions);
    reading('connected_peers', 'Small peers with an accepted (announced) WebSocket session now', sources.peers);
    this.#opened = new Counter({ name: name('websocket_sessions_opened_total'), help: 'WebSocket sessions opened (upgrades accepted)', registers });
    this.#closed = new Counter({
      name: name('websocket_sessions_closed_total'),
      help: 'WebSocket sessions ended, by close code (a code the Big Peer does not use is counted as other)',
      labelNames: ['code'],
      registers,
    });

    following('replication_sent_documents_total', 'Documents sent to small peers in replication updates', () => sources.traffic().docsSent);
    following('replication_received_documents_total', 'Documents received from small peers in replication updates', () => sources.traffic().docsReceived);
    following('replication_sent_bytes_total', 'Bytes of replication frames sent (after the announcement)', () => sources.traffic().bytesSent);
    following('replication_received_bytes_total', 'Bytes of replication frames received (after the announcement)', () => sources.traffic().bytesReceived);

    const blocked = new Counter({
      name: name('store_blocked_writes_total'),
      help: 'Write transactions that had to wait for the write slot, by originator (User, Replication, Internal)',
      labelNames: ['originator'],
      registers,
    });
    const blockedSeconds = new Counter({
      name: name('store_blocked_write_wait_seconds_total'),
      help: 'Time write transactions spent waiting for the write slot, by originator',
      labelNames: ['originator'],
      registers,
    });
    // Every originator's series exists from the start, at 0: a rate over it never starts missing.
    for (const originator of ORIGINATORS) {
      blocked.inc({ originator }, 0);
      blockedSeconds.inc({ originator }, 0);
    }
    this.#offBlocked = sources.store.onBlockedWait((wait) => {
      blocked.inc({ originator: wait.originator });
      blockedSeconds.inc({ originator: wait.originator }, Math.max(0, wait.waitedMs) / 1000);
    });
    reading('store_writes_waiting', 'Write transactions waiting for the write slot now', () => sources.store.writeSlot.waiting);
    reading('store_last_txn_id', 'The last txn_id the store committed', () => sources.store.lastTxnId);
    reading('draining', '1 while the Big Peer drains (its /_ready answers 503), else 0', () => (sources.draining() ? 1 : 0));

    if (options.processMetrics === true) collectDefaultMetrics({ register: this.registry });
  }

  /** The start of an HTTP request; the function returned takes the status of its answer. */
  request(method: string, route: string): (status: number | undefined) => void {
    const started = performance.now();
    this.#inFlight.inc();
    return (status) => {
      this.#inFlight.dec();
      const labels = { method: METHODS.has(method) ? method : 'other', route, status_class: statusClass(status) };
      this.#requestSeconds.observe(labels, (performance.now() - started) / 1000);
    };
  }

  sessionOpened(): void {
    this.#opened.inc();
  }

  sessionEnded(code: number): void {
    this.#closed.inc({ code: CLOSE_CODES.has(code) ? String(code) : 'other' });
  }

  /** prom-client's Prometheus text content type (`text/plain; version=0.0.4; charset=utf-8`). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric, in the Prometheus text format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** Stops listening to the store. */
  close(): void {
    this.#offBlocked();
  }
}
