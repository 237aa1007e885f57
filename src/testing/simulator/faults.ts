/**
 * What goes wrong, one random fault a step: partitions (one link cut, or a peer cut off from
 * all), healing them, process crashes of small peers and of the Big Peer (started again a few
 * seconds later on what their store committed), a wipe (a reinstall with a new store and key),
 * a permission change (a new grant, a new login, the peer's sessions dropped so that the next
 * ones carry it), and pauses (seconds pass at once: timers fire, certificates near expiry).
 */
import { READ_GRANTS, permissions } from './menus.ts';
import { keyFromSeed } from './sim-keys.ts';
import type { SimPeer } from './sim-peer.ts';
import { Links } from './links.ts';
import type { Action } from './workload.ts';
import type { World } from './world.ts';

/** Crashes `peer` now (its connections drop; it starts again at `restartAt`); with `wipe`, its store is gone too. */
export function crashPeer(world: World, peer: SimPeer, wipe: boolean): void {
  const sync = peer.sync;
  if (sync === undefined) return;
  const acknowledged = peer.role === 'small' ? sync.pendingUpload.acknowledgedUpTo : Number.POSITIVE_INFINITY;
  world.net.crash(peer.name, world.random.int(0, 3_000));
  peer.crash();
  if (wipe) {
    world.ledger.wiped(peer.name, peer.identity, acknowledged);
    peer.wipe(keyFromSeed(world.random.bytes32()));
  }
  peer.restartAt = world.clock.now() + world.random.int(0, 5_000);
}

/** Per acknowledgement the Big Peer sends: it dies right after (before anything else of it runs). */
const CRASH_AFTER_ACK = 0.0015;

/**
 * A targeted durability fault: the Big Peer dies right after sending an acknowledgement, and the
 * small peer it acknowledged is wiped right after hearing it. What the Big Peer acknowledged must
 * have been committed before it said so: the ledger counts it as certain, and the device no longer
 * has it to send again.
 */
export function armDurabilityFaults(world: World): void {
  const doomed = new Set<string>();
  world.net.onSent = (from, text) => {
    if (from.owner !== world.big.name || !text.startsWith('{"type":"ack"') || !world.random.chance(CRASH_AFTER_ACK) || !world.big.isUp) return;
    doomed.add(from.other.owner);
    world.stats.crashes++;
    queueMicrotask(() => crashPeer(world, world.big, false)); // before anything else of it runs
  };
  world.net.onDelivered = (to, text) => {
    if (!doomed.has(to.owner) || !text.startsWith('{"type":"ack"')) return;
    doomed.delete(to.owner);
    const peer = world.smalls.find((p) => p.name === to.owner);
    if (peer === undefined || !peer.isUp) return;
    world.stats.wipes++;
    setImmediate(() => crashPeer(world, peer, true)); // once it has taken the acknowledgement in
  };
}

function cut(world: World): Action | undefined {
  const open = world.links.all.filter((l) => !l.partitioned);
  if (open.length === 0) return undefined;
  const link = world.random.pick(open);
  const detect = world.random.int(0, 15_000);
  return {
    text: `partition ${Links.label(link)} (noticed after ${detect} ms)`,
    run: () => {
      world.stats.partitions++;
      world.links.cut(link, detect);
    },
  };
}

function isolate(world: World): Action {
  const peer = world.random.pick(world.smalls);
  const detect = world.random.int(0, 15_000);
  return {
    text: `partition ${peer.name} from every peer (noticed after ${detect} ms)`,
    run: () => {
      world.stats.partitions++;
      for (const link of world.links.of(peer)) world.links.cut(link, detect);
    },
  };
}

function heal(world: World): Action | undefined {
  const cutLinks = world.links.all.filter((l) => l.partitioned);
  if (cutLinks.length === 0) return undefined;
  const link = world.random.pick(cutLinks);
  return { text: `heal ${Links.label(link)}`, run: () => void (link.partitioned = false) };
}

function crash(world: World, target: 'small' | 'big' | 'wipe'): Action | undefined {
  const peer = target === 'big' ? world.big : world.random.pick(world.smalls);
  if (!peer.isUp) return undefined;
  return {
    text: `${target === 'wipe' ? 'wipe' : 'crash'} ${peer.name}`,
    run: () => {
      if (target === 'wipe') world.stats.wipes++;
      else world.stats.crashes++;
      crashPeer(world, peer, target === 'wipe');
    },
  };
}

function changePermissions(world: World): Action | undefined {
  const peer = world.random.pick(world.smalls);
  const current = world.auth.granted(peer.user);
  const read = world.random.pick(READ_GRANTS.filter((g) => JSON.stringify(g) !== JSON.stringify(current.read)));
  return {
    text: `${peer.name}: read permission becomes ${JSON.stringify(read)}`,
    run: () => {
      const sync = peer.sync;
      if (sync === undefined) return;
      world.stats.permissionChanges++;
      world.auth.grant(peer.user, permissions(read, current.write));
      const login = sync.auth.login(peer.user, 'sim').then(() => {
        if (peer.pendingLogin === login) peer.pendingLogin = undefined;
        for (const link of world.links.of(peer)) world.links.drop(link);
      });
      peer.pendingLogin = login;
      world.track(peer, 'login', login);
    },
  };
}

function pause(world: World): Action {
  const ms = world.random.int(1_000, 30_000);
  return {
    text: `${ms} ms pass`,
    run: async () => {
      world.stats.pauses++;
      for (let left = ms; left > 0; left -= 250) await world.advance(Math.min(250, left));
    },
  };
}

const FAULTS = { cut: 2.5, isolate: 0.8, heal: 3.5, crash: 0.6, crashBig: 0.12, wipe: 0.1, permissions: 0.7, pause: 1.5 } as const;

export const FAULT_WEIGHT = Object.values(FAULTS).reduce((a, b) => a + b, 0);

/** One fault, or undefined when the one drawn cannot happen now. */
export function faultAction(world: World): Action | undefined {
  switch (world.random.weighted(FAULTS)) {
    case 'cut':
      return cut(world);
    case 'isolate':
      return isolate(world);
    case 'heal':
      return heal(world);
    case 'crash':
      return crash(world, 'small');
    case 'crashBig':
      return crash(world, 'big');
    case 'wipe':
      return crash(world, 'wipe');
    case 'permissions':
      return changePermissions(world);
    case 'pause':
      return pause(world);
  }
}
