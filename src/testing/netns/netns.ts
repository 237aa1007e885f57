/**
 * A throwaway IPv4 network of Linux network namespaces for tests that need real sockets and real
 * multicast: one namespace per peer, each with a veth whose other end sits on a bridge that
 * lives in a namespace of its own (the host's links and routes are never touched), addresses
 * 10.77.<n>.0/24 (the bridge .1, peers from .11), `lo` up, multicast routed out of each peer's
 * veth (`224.0.0.0/4 dev eth0`) and IGMP snooping off on the bridge so that every port hears
 * every mDNS packet. Nothing joins it to the host's namespace, so its multicast cannot leave it.
 *
 * Names carry a run prefix, `smln<pid>-`. Removal always runs (the caller's teardown, and an
 * exit handler), and a new network first removes what a crashed run left: namespaces with this
 * prefix pattern whose process is gone, and the processes still inside them; never anything else.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { atExit } from './exit-cleanup.ts';

/** The namespace names this module makes: `smln<pid>-<role>`. */
const NAME_PATTERN = /^smln(\d+)-([a-z0-9]+)$/;
const IP_TIMEOUT_MS = 10_000;
/** The peer side of each veth, inside the peer's namespace. */
export const PEER_LINK = 'eth0';
const BRIDGE = 'br0';

/** Thrown when namespaces cannot be made here: the tests that need them fail with it, never skip. */
export class NetnsUnsupportedError extends Error {}

export interface TestNetwork {
  /** `smln<pid>-` */
  readonly prefix: string;
  /** The namespace of the bridge, where a Big Peer may listen on `bridgeAddress`. */
  readonly bridgeNamespace: string;
  readonly bridgeAddress: string;
  /** The peer roles, in the order given. */
  readonly roles: readonly string[];
  namespaceOf(role: string): string;
  /** The peer's IPv4 address on its veth. */
  addressOf(role: string): string;
  /** Cuts the peer's cable: its veth's bridge end goes down (its own end, addresses and routes stay). */
  cut(role: string): void;
  /** Plugs it back in. */
  restore(role: string): void;
  /** Kills what runs in the namespaces and deletes them. Safe to call twice. */
  destroy(): void;
}

function ip(args: readonly string[]): string {
  return execFileSync('ip', [...args], { encoding: 'utf8', timeout: IP_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
}

function stderrOf(error: unknown): string {
  const e = error as { stderr?: unknown; message?: string; code?: string };
  if (e.code === 'ENOENT') return 'the `ip` command (iproute2) is not installed';
  const text = typeof e.stderr === 'string' ? e.stderr.trim() : '';
  return text === '' ? (e.message ?? String(error)) : text;
}

function runIp(args: readonly string[]): void {
  try {
    ip(args);
  } catch (error) {
    throw new Error(`ip ${args.join(' ')} failed: ${stderrOf(error)}`, { cause: error });
  }
}

/** The namespaces that exist, by name. */
function namespaces(): string[] {
  return ip(['netns', 'list'])
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name !== '');
}

/** Kills the processes inside `ns`, then deletes it; quiet when it is already gone. */
function removeNamespace(ns: string): void {
  try {
    for (const pid of ip(['netns', 'pids', ns])
      .split(/\s+/)
      .filter((p) => /^\d+$/.test(p))) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  } catch {
    // No such namespace.
  }
  try {
    ip(['netns', 'del', ns]);
  } catch {
    // Already gone.
  }
}

function isRunningNode(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('node');
  } catch {
    return false;
  }
}

/** Removes the namespaces a crashed run of this module left (its process is gone). Returns their names. */
export function removeStaleNetworks(): string[] {
  const stale = namespaces().filter((ns) => {
    const match = NAME_PATTERN.exec(ns);
    return match !== null && Number(match[1]) !== process.pid && !isRunningNode(Number(match[1]));
  });
  for (const ns of stale) removeNamespace(ns);
  return stale;
}

/** Throws NetnsUnsupportedError, saying how to run these tests, when this process cannot make a namespace. */
export function assertNetnsSupport(probe: string): void {
  if (process.platform !== 'linux') {
    throw new NetnsUnsupportedError(`these tests need Linux network namespaces (ip netns); this is ${process.platform}`);
  }
  try {
    ip(['netns', 'add', probe]);
  } catch (error) {
    throw new NetnsUnsupportedError(
      `these tests need root and network namespaces: \`ip netns add ${probe}\` failed (${stderrOf(error)}). ` +
        'Run them as root on Linux with iproute2 installed, as CI does (for example `sudo npx vitest run src/peer/lan/lan.netns.test.ts`, ' +
        'or in a container started with --cap-add NET_ADMIN --cap-add SYS_ADMIN); they fail rather than skip where namespaces cannot be made.',
      { cause: error },
    );
  }
  ip(['netns', 'del', probe]);
}

/** Which /24 of 10.77 a run uses (any works, since nothing routes between runs; this keeps logs readable). */
function subnetOf(pid: number): number {
  return 1 + (pid % 250);
}

/**
 * Makes the network: a bridge namespace and one namespace per role (`['a', 'b', 'c']`). Throws
 * NetnsUnsupportedError where namespaces cannot be made; anything made before another failure
 * is removed.
 */
export function createTestNetwork(roles: readonly string[]): TestNetwork {
  if (roles.length === 0 || roles.length > 200 || roles.some((r) => !/^[a-z0-9]+$/.test(r) || r === 'br')) {
    throw new Error(`roles must be 1 to 200 short lowercase names other than br: ${roles.join(', ')}`);
  }
  const prefix = `smln${process.pid}-`;
  assertNetnsSupport(`${prefix}probe`);
  removeStaleNetworks();
  const subnet = `10.77.${subnetOf(process.pid)}`;
  const bridgeNamespace = `${prefix}br`;
  const made: string[] = [];
  const destroyAll = (): void => {
    for (const ns of made.splice(0).reverse()) removeNamespace(ns);
  };
  const offExit = atExit(destroyAll);
  const known = (role: string): string => {
    if (!roles.includes(role)) throw new Error(`no peer ${role} in this network (${roles.join(', ')})`);
    return role;
  };
  const namespaceOf = (role: string): string => `${prefix}${known(role)}`;
  const addressOf = (role: string): string => `${subnet}.${11 + roles.indexOf(known(role))}`;
  /** The bridge end of the peer's veth, in the bridge namespace. */
  const bridgePort = (role: string): string => `v-${known(role)}`;
  try {
    for (const ns of [bridgeNamespace, ...roles.map(namespaceOf)]) {
      runIp(['netns', 'add', ns]);
      made.push(ns);
    }
    const inBridge = (...args: string[]): void => runIp(['-n', bridgeNamespace, ...args]);
    inBridge('link', 'set', 'lo', 'up');
    inBridge('link', 'add', BRIDGE, 'type', 'bridge', 'mcast_snooping', '0', 'stp_state', '0');
    inBridge('addr', 'add', `${subnet}.1/24`, 'dev', BRIDGE);
    inBridge('link', 'set', BRIDGE, 'up');
    for (const role of roles) {
      const ns = namespaceOf(role);
      const port = bridgePort(role);
      // Both ends are made where they live: nothing appears in the host's namespace, even briefly.
      inBridge('link', 'add', port, 'type', 'veth', 'peer', 'name', PEER_LINK, 'netns', ns);
      inBridge('link', 'set', port, 'master', BRIDGE);
      inBridge('link', 'set', port, 'up');
      const inPeer = (...args: string[]): void => runIp(['-n', ns, ...args]);
      inPeer('link', 'set', 'lo', 'up');
      inPeer('addr', 'add', `${addressOf(role)}/24`, 'dev', PEER_LINK);
      inPeer('link', 'set', PEER_LINK, 'up');
      inPeer('route', 'add', '224.0.0.0/4', 'dev', PEER_LINK);
    }
  } catch (error) {
    destroyAll();
    offExit();
    throw error;
  }
  let destroyed = false;
  return {
    prefix,
    bridgeNamespace,
    bridgeAddress: `${subnet}.1`,
    roles,
    namespaceOf,
    addressOf,
    cut: (role) => runIp(['-n', bridgeNamespace, 'link', 'set', bridgePort(role), 'down']),
    restore: (role) => runIp(['-n', bridgeNamespace, 'link', 'set', bridgePort(role), 'up']),
    destroy() {
      if (destroyed) return;
      destroyed = true;
      destroyAll();
      offExit();
    },
  };
}
