/**
 * The endpoints of operators and load balancers (docs/operations.md), outside the spec's API:
 *
 *   GET /_health   liveness: 200 {"status": "ok"} while the process serves, even while draining.
 *   GET /_ready    readiness: 200 {"status": "ready"} when the node takes new work and its store
 *                  answers a trivial read; else 503 {"status": "draining" | "unavailable", "reason"}.
 *   GET /metrics   the Prometheus text format; with `metricsToken` configured, it needs
 *                  `Authorization: Bearer <metricsToken>`.
 *
 * The first two need no credential (load balancers call them) and take GET and HEAD only.
 */
import { LOG_EVENTS } from '../../shared/log.ts';
import type { Logger, Timers } from '../../peer/host.ts';
import { HttpError } from '../http-error.ts';
import type { Handler, Reply, Route } from '../http-server.ts';
import type { BigPeerMetrics } from '../metrics.ts';
import { sameSecret } from '../same-secret.ts';
import { errorMessage } from '../../shared/error-message.ts';

export const OPERATIONS_PATHS = { health: '/_health', ready: '/_ready', metrics: '/metrics' } as const;

/** The longest /_ready waits for the store's read before it answers 503 unavailable. */
export const READY_STORE_TIMEOUT_MS = 2_000;

export interface OperationsDeps {
  readonly timers: Timers;
  readonly logger: Logger;
  /** Is the Big Peer draining (it takes no new work)? */
  readonly draining: () => boolean;
  /** A trivial read of the store; throws (or rejects) when the store does not answer. */
  readonly readStore: () => unknown;
  /** Told each time /_ready is asked: a drain waits for a load balancer only when one asks. */
  readonly readinessAsked: () => void;
  readonly metrics: BigPeerMetrics;
  readonly metricsToken: string | undefined;
}

/** Health answers are about this moment: never kept by a cache. */
const NO_STORE = { 'Cache-Control': 'no-store' } as const;

/** Why the store does not answer, or undefined when it does (within READY_STORE_TIMEOUT_MS). */
async function storeProblem(deps: OperationsDeps): Promise<{ reason: string; error: string } | undefined> {
  let timer: ReturnType<Timers['setTimeout']> | undefined;
  const timeout = new Promise<{ reason: string; error: string }>((resolve) => {
    const reason = `the store did not answer a read within ${READY_STORE_TIMEOUT_MS} ms`;
    timer = deps.timers.setTimeout(() => resolve({ reason, error: 'timeout' }), READY_STORE_TIMEOUT_MS);
  });
  const read = (async () => {
    await deps.readStore();
    return undefined;
  })().catch((error: unknown) => {
    // Only the stable code goes into the answer, which anyone may read; the message (which may
    // name a database host) goes to the log.
    const code = (error as { code?: unknown } | null)?.code;
    return {
      reason: `the store does not answer a read${typeof code === 'string' ? ` (${code})` : ''}`,
      error: errorMessage(error),
    };
  });
  try {
    return await Promise.race([read, timeout]);
  } finally {
    if (timer !== undefined) deps.timers.clearTimeout(timer);
  }
}

export function operationsRoutes(deps: OperationsDeps): Route[] {
  const getAndHead = (handler: Handler): Route['methods'] => ({ GET: handler, HEAD: handler });
  // The store's state as /_ready last saw it: a change is logged once, not at every probe.
  let storeAnswered = true;

  const health: Handler = async () => ({ status: 200, headers: NO_STORE, json: { status: 'ok' } });

  const ready: Handler = async () => {
    deps.readinessAsked();
    if (deps.draining()) {
      return { status: 503, headers: NO_STORE, json: { status: 'draining', reason: 'the Big Peer is draining: it takes no new work and stops soon' } };
    }
    const problem = await storeProblem(deps);
    if (problem !== undefined) {
      if (storeAnswered) deps.logger.warn(LOG_EVENTS.bigPeerUnavailable, { reason: problem.reason, error: problem.error });
      storeAnswered = false;
      return { status: 503, headers: NO_STORE, json: { status: 'unavailable', reason: problem.reason } };
    }
    if (!storeAnswered) deps.logger.info(LOG_EVENTS.bigPeerAvailable);
    storeAnswered = true;
    return { status: 200, headers: NO_STORE, json: { status: 'ready' } };
  };

  const metrics: Handler = async (ctx): Promise<Reply> => {
    if (deps.metricsToken !== undefined) {
      const match = /^Bearer +(\S+) *$/i.exec(ctx.req.headers.authorization ?? '');
      if (match === null || !sameSecret(match[1] as string, deps.metricsToken)) {
        throw new HttpError(401, 'http/unauthorized', '/metrics needs the header Authorization: Bearer <metricsToken>', {
          'WWW-Authenticate': 'Bearer realm="metrics"',
        });
      }
    }
    return { status: 200, headers: { ...NO_STORE, 'Content-Type': deps.metrics.contentType }, text: await deps.metrics.text() };
  };

  return [
    { paths: [OPERATIONS_PATHS.health], methods: getAndHead(health) },
    { paths: [OPERATIONS_PATHS.ready], methods: getAndHead(ready) },
    { paths: [OPERATIONS_PATHS.metrics], methods: getAndHead(metrics) },
  ];
}
