/**
 * Small peers on a test network: one agent per namespace, LAN discovery on the namespace's
 * address with a service type of the run, logging in to a Big Peer on the bridge; and the wait
 * until every pair of them has a session.
 */
import { AgentProcess } from './agent-process.ts';
import type { AgentConfig, AgentSession } from './protocol.ts';
import type { TestNetwork } from './netns.ts';
import { until } from './wait.ts';

export interface LanPeerOptions {
  readonly network: TestNetwork;
  readonly role: string;
  readonly persistenceDirectory: string;
  readonly appID: string;
  readonly playgroundToken: string;
  readonly bigPeerURL: string;
  /** Unique per run (and per test), so that no other advertisement is ever seen. */
  readonly serviceType: string;
  readonly subscriptions: readonly string[];
  /** Overrides: `bigPeer` (default true), `lan: false`, `connect`, `logLevel`, `reconnect`. */
  readonly config?: Partial<AgentConfig>;
}

/** The agent configuration of a LAN peer in `role`'s namespace. */
export function lanPeerConfig(options: LanPeerOptions): AgentConfig {
  return {
    name: options.role,
    persistenceDirectory: options.persistenceDirectory,
    appID: options.appID,
    playgroundToken: options.playgroundToken,
    bigPeerURL: options.bigPeerURL,
    bigPeer: true,
    lan: { interface: options.network.addressOf(options.role), serviceType: options.serviceType },
    subscriptions: options.subscriptions,
    // Quick redials, so that a restored link is used within seconds.
    reconnect: { minDelayMs: 200, maxDelayMs: 2_000 },
    ...options.config,
  };
}

/** A started peer: its agent and its peer key. */
export interface LanPeer {
  readonly agent: AgentProcess;
  readonly role: string;
  readonly peerKey: string;
}

/**
 * Spawns one agent per option (in parallel), then starts sync on each. On any failure the
 * agents already spawned are stopped before it throws.
 */
export async function startLanPeers(options: readonly LanPeerOptions[], started: AgentProcess[]): Promise<LanPeer[]> {
  const agents = await Promise.all(
    options.map(async (o) => {
      const agent = AgentProcess.spawnNow(o.network.namespaceOf(o.role), lanPeerConfig(o));
      started.push(agent);
      await agent.ready();
      return agent;
    }),
  );
  const keys = await Promise.all(agents.map((agent) => agent.call('start', {}, 30_000)));
  return agents.map((agent, i) => ({ agent, role: agent.name, peerKey: (keys[i] as { peerKey: string }).peerKey }));
}

/** The small-peer sessions of each peer, by role. */
export async function smallPeerSessions(peers: readonly LanPeer[]): Promise<Map<string, AgentSession[]>> {
  const all = await Promise.all(peers.map((p) => p.agent.call('sessions', {})));
  return new Map(peers.map((p, i) => [p.role, (all[i]?.sessions ?? []).filter((s) => s.role === 'small-peer')]));
}

/** Waits until each peer has a session with each of `peers` (and only with them, among small peers). */
export async function waitForMesh(peers: readonly LanPeer[], timeoutMs: number): Promise<void> {
  await until(`a session between every pair of ${peers.map((p) => p.role).join(', ')}`, timeoutMs, async () => {
    const sessions = await smallPeerSessions(peers);
    const state = peers.map(
      (p) => `${p.role}: ${(sessions.get(p.role) ?? []).map((s) => peers.find((o) => o.peerKey === s.remote)?.role ?? 'stranger').join(',')}`,
    );
    const done = peers.every((p) => {
      const remotes = (sessions.get(p.role) ?? []).map((s) => s.remote).sort();
      const expected = peers
        .filter((o) => o !== p)
        .map((o) => o.peerKey)
        .sort();
      return JSON.stringify(remotes) === JSON.stringify(expected);
    });
    return { done, state };
  });
}
