/**
 * LAN discovery over mDNS/DNS-SD with bonjour-service: publishes this peer as
 * `<instance>._syncmesh._tcp.local` with its TXT record, browses for the same type, and asks
 * again now and then (a peer that appeared while a link was down answers the next query).
 */
import { networkInterfaces } from 'node:os';
import { Bonjour, type Browser, type Service, type ServiceConfig } from 'bonjour-service';
import {
  LAN_SERVICE_TYPE,
  advertisementTxt,
  instanceName,
  readAdvertisementTxt,
  type LanAdvertisement,
  type LanDiscovery,
  type LanDiscoveryEvents,
  type LanDiscoveryOptions,
  type LanSighting,
} from './discovery.ts';

/** Queries are repeated at this interval, doubling up to the cap (RFC 6762 5.2 asks for growth). */
const FIRST_REQUERY_MS = 1_000;
const MAX_REQUERY_MS = 10_000;
/**
 * A peer that answered none of our queries for this long is gone (a crash, a pulled cable: no
 * goodbye). bonjour-service would keep it for its PTR record's TTL, 8 hours from first seen.
 */
export const LAN_PEER_STALE_MS = 35_000;
/** Peers remembered (a LAN may hold many, or a host forging answers); those gone are dropped first. */
const MAX_KNOWN = 1_000;

interface Known {
  sighting: LanSighting;
  lastSeen: number;
  present: boolean;
}
/** How long opening the multicast socket may take. */
const READY_TIMEOUT_MS = 5_000;

interface ResourceRecord {
  readonly name?: unknown;
  readonly type?: unknown;
  readonly ttl?: unknown;
  readonly data?: unknown;
}

/** The multicast-dns instance inside bonjour-service: its socket errors must be caught, or they throw. */
interface MulticastDns {
  on(event: 'error' | 'warning', listener: (error: Error) => void): void;
  on(event: 'response', listener: (packet: { answers?: ResourceRecord[]; additionals?: ResourceRecord[] }) => void): void;
  once(event: 'ready', listener: () => void): void;
  once(event: 'error', listener: (error: Error) => void): void;
  removeListener(event: string, listener: (...args: never[]) => void): void;
}

export class BonjourDiscovery implements LanDiscovery {
  readonly #options: LanDiscoveryOptions;
  #bonjour: Bonjour | undefined;
  #browser: Browser | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  /** Every peer seen, by service instance name, with when it last answered. */
  readonly #known = new Map<string, Known>();
  /** The last socket warning (a send or a multicast membership that failed), told once each. */
  lastWarning: string | undefined;

  constructor(options: LanDiscoveryOptions = {}) {
    this.#options = options;
  }

  async start(advertisement: LanAdvertisement, events: LanDiscoveryEvents): Promise<void> {
    const iface = this.#options.interface;
    if (iface !== undefined) {
      const local = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address));
      if (!local.includes(iface))
        throw new Error(`${iface} is not an IPv4 address of this host (it has ${local.join(', ') || 'none'}): give lan.interface one of them`);
    }
    const warn = (error: Error): void => {
      if (error.message === this.lastWarning) return;
      this.lastWarning = error.message;
      events.warning?.(error.message);
    };
    // The options reach multicast-dns (its `interface` and `bind`), though typed as a service's.
    const socketOptions = (iface === undefined ? {} : { interface: iface, bind: '0.0.0.0' }) as Partial<ServiceConfig>;
    const bonjour = new Bonjour(socketOptions, warn);
    this.#bonjour = bonjour;
    const mdns = (bonjour as unknown as { server: { mdns: MulticastDns } }).server.mdns;
    mdns.on('warning', warn);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the mDNS socket did not open within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
      mdns.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
      mdns.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    }).catch(async (error: unknown) => {
      await this.stop();
      throw error;
    });
    // Later socket errors (the interface went away) must not throw out of an event handler.
    mdns.on('error', warn);
    const type = this.#options.serviceType ?? LAN_SERVICE_TYPE;
    const name = instanceName(advertisement.peerKey);
    // No probing (RFC 6762 8.1) before announcing: the name carries 240 bits of the peer key, so
    // it cannot clash, and probing would delay every newcomer's first sync by about 0.9 s.
    bonjour.publish({ name, type, port: advertisement.port, host: `${name}.local`, txt: advertisementTxt(advertisement), disableIPv6: true, probe: false });
    const browser = bonjour.find({ type });
    this.#browser = browser;
    const seen = (service: Service): void => {
      if (this.#stopped || service.name === name) return;
      const sighting = toSighting(service);
      if (sighting === undefined) return;
      this.#known.delete(service.name);
      this.#known.set(service.name, { sighting, lastSeen: Date.now(), present: true });
      for (const [peer, known] of this.#known) {
        if (this.#known.size <= MAX_KNOWN) break;
        if (!known.present) this.#known.delete(peer);
      }
      events.up(sighting);
    };
    browser.on('up', seen);
    browser.on('srv-update', seen);
    browser.on('txt-update', seen);
    browser.on('down', (service: Service) => {
      if (this.#stopped || service.name === name) return;
      this.#known.delete(service.name);
      events.down(service.name);
    });
    // Every answer naming a known peer refreshes it (bonjour-service tells only of changes); one
    // that answers again after it went stale is up again.
    const suffix = `._${type}._tcp.local`;
    mdns.on('response', (packet) => {
      if (this.#stopped) return;
      for (const record of [...(packet.answers ?? []), ...(packet.additionals ?? [])]) {
        if (typeof record.ttl !== 'number' || record.ttl <= 0) continue;
        const fqdn = record.type === 'PTR' ? record.data : record.type === 'SRV' || record.type === 'TXT' ? record.name : undefined;
        if (typeof fqdn !== 'string' || !fqdn.toLowerCase().endsWith(suffix)) continue;
        const known = this.#known.get(fqdn.slice(0, -suffix.length));
        if (known === undefined) continue;
        known.lastSeen = Date.now();
        if (!known.present) {
          known.present = true;
          events.up(known.sighting);
        }
      }
    });
    let delay = FIRST_REQUERY_MS;
    const requery = (): void => {
      this.#timer = setTimeout(() => {
        if (this.#stopped) return;
        browser.update();
        const now = Date.now();
        for (const [peer, known] of this.#known) {
          if (!known.present || now - known.lastSeen <= LAN_PEER_STALE_MS) continue;
          known.present = false;
          events.down(peer);
        }
        delay = Math.min(MAX_REQUERY_MS, delay * 2);
        requery();
      }, delay);
      this.#timer.unref?.();
    };
    requery();
  }

  stop(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#browser?.stop();
    const bonjour = this.#bonjour;
    if (bonjour === undefined) return Promise.resolve();
    // Goodbye packets (TTL 0) first, then the socket; bounded, since a dead interface never answers.
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        try {
          bonjour.destroy();
        } catch {
          // Already closed.
        }
        resolve();
      };
      const timer = setTimeout(done, 1_000);
      try {
        bonjour.unpublishAll(() => done());
      } catch {
        done();
      }
    });
  }
}

function toSighting(service: Service): LanSighting | undefined {
  const referer = service.referer?.address;
  const v4 = (service.addresses ?? []).filter((a) => /^\d+\.\d+\.\d+\.\d+$/.test(a));
  // The address the answer came from is the one known to route back; else the first IPv4.
  const address = referer !== undefined && (v4.length === 0 || v4.includes(referer)) && /^\d+\.\d+\.\d+\.\d+$/.test(referer) ? referer : v4[0];
  if (address === undefined || typeof service.port !== 'number') return undefined;
  return { ...readAdvertisementTxt(service.txt), address, port: service.port, name: service.name };
}
