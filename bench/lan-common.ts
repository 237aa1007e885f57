/**
 * What the `lan` suite's tables share: a network of namespaces a and b with a Big Peer on its
 * bridge (removed at the end, or at exit), the peers' options, and the alternation of sides
 * whose figures are measured inside the processes (timestamps of two processes on one host).
 */
import type { AgentProcess } from '../src/testing/netns/agent-process.ts';
import { BigPeerProcess } from '../src/testing/netns/big-peer-process.ts';
import type { LanPeerOptions } from '../src/testing/netns/lan-peers.ts';
import { createTestNetwork, type TestNetwork } from '../src/testing/netns/netns.ts';
import type { SuiteContext } from './harness.ts';

export const APP_ID = 'bench-lan';
export const TOKEN = 'bench-lan-playground-token';
export const SEED = 29;
const BIG_PEER_PORT = 7201;
/** Bound on one repetition of any side, and on any setup step. */
export const STEP_TIMEOUT_MS = 30_000;

export const ms = (value: number): string => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
export const pause = (delayMs: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, delayMs));

/** One side of a comparison that measures its own figure (the harness's `Side` times `run()` instead). */
export interface MeasuredSide {
  setup?(): Promise<void>;
  measure(): Promise<number>;
  teardown?(): Promise<void>;
}

/** Warm-up, then up to `repeat` rounds running every side once, in order, within `budgetMs`; each side's samples. */
export async function alternate(sides: readonly MeasuredSide[], options: { warmup: number; repeat: number; budgetMs: number }): Promise<number[][]> {
  const started = performance.now();
  const once = async (side: MeasuredSide): Promise<number> => {
    await side.setup?.();
    try {
      return await side.measure();
    } finally {
      await side.teardown?.();
    }
  };
  for (let i = 0; i < options.warmup; i++) for (const side of sides) await once(side);
  const samples: number[][] = sides.map(() => []);
  for (let i = 0; i < options.repeat; i++) {
    if (i > 0 && performance.now() - started > options.budgetMs) break;
    for (let s = 0; s < sides.length; s++) samples[s]?.push(await once(sides[s] as MeasuredSide));
  }
  return samples;
}

/** Runs `run` on a fresh network of namespaces a and b with a Big Peer on the bridge; stops every agent pushed to `agents`, the Big Peer and the network after. */
export async function withNetwork<T>(
  context: SuiteContext,
  label: string,
  run: (net: TestNetwork, big: BigPeerProcess, agents: AgentProcess[]) => Promise<T>,
): Promise<T> {
  const net = createTestNetwork(['a', 'b']);
  const agents: AgentProcess[] = [];
  let big: BigPeerProcess | undefined;
  try {
    big = await BigPeerProcess.start({ namespace: net.bridgeNamespace, host: net.bridgeAddress, port: BIG_PEER_PORT, appID: APP_ID, playgroundToken: TOKEN });
    context.log(`${label}: namespaces ${net.prefix}{a,b,br}, Big Peer at ${big.url}`);
    return await run(net, big, agents);
  } finally {
    await Promise.all(agents.map((a) => a.stop()));
    await big?.stop();
    net.destroy();
  }
}

/** A LAN peer in `role`'s namespace with a fresh directory, subscribed to `subscription`. */
export function peerOptions(
  context: SuiteContext,
  net: TestNetwork,
  big: BigPeerProcess,
  role: string,
  serviceType: string,
  subscription: string,
): LanPeerOptions {
  return {
    network: net,
    role,
    persistenceDirectory: context.tempDir(`lan-${role}`),
    appID: APP_ID,
    playgroundToken: TOKEN,
    bigPeerURL: big.url,
    serviceType,
    subscriptions: [subscription],
  };
}
