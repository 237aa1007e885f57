/**
 * The in-memory twin of LAN discovery: peers on one `MemoryLanNetwork` see each other's
 * advertisements at once, unless cut off (`unlink`, as a pulled cable: no goodbye) or kept apart
 * (`separate`, two peers out of each other's range), so that the logic of LAN sync is tested
 * without multicast. Peers are named by a label; the address they are dialed at is 127.0.0.1
 * unless given.
 */
import { instanceName, type LanAdvertisement, type LanDiscovery, type LanDiscoveryEvents, type LanSighting } from './discovery.ts';

type Txt = Partial<Pick<LanSighting, 'peerKey' | 'appID' | 'protocolVersion'>>;

interface Member {
  readonly label: string;
  readonly address: string;
  readonly advertisement: LanAdvertisement;
  readonly events: LanDiscoveryEvents;
  readonly txt: Txt;
}

export interface MemoryDiscoveryOptions {
  /** The address others dial (default 127.0.0.1). */
  readonly address?: string;
  /** Overrides what the peer advertises (tests of peers of another app or protocol version). */
  readonly txt?: Txt;
}

export class MemoryLanNetwork {
  readonly #members = new Set<Member>();
  readonly #cut = new Set<string>();
  readonly #apart = new Set<string>();

  /** The discovery of the peer named `label`. */
  discovery(label: string, options: MemoryDiscoveryOptions = {}): LanDiscovery {
    let member: Member | undefined;
    return {
      start: async (advertisement, events) => {
        const joining: Member = { label, address: options.address ?? '127.0.0.1', advertisement, events, txt: options.txt ?? {} };
        member = joining;
        this.#members.add(joining);
        for (const other of this.#members) this.#introduce(joining, other);
      },
      stop: async () => {
        if (member === undefined || !this.#members.delete(member)) return;
        for (const other of this.#members) if (this.#visible(other, member)) other.events.down(instanceName(member.advertisement.peerKey));
      },
    };
  }

  /** The peer no longer sees or is seen, and says no goodbye (a pulled cable). */
  unlink(label: string): void {
    this.#cut.add(label);
  }

  /** The peer is seen again: it and the others exchange advertisements, as the next query would. */
  link(label: string): void {
    if (!this.#cut.delete(label)) return;
    for (const member of this.#members) {
      if (member.label !== label) continue;
      for (const other of this.#members) this.#introduce(member, other);
    }
  }

  /** Every peer hears this answer, true or forged (a test of what one mDNS packet may do). */
  announce(sighting: LanSighting): void {
    for (const member of this.#members) member.events.up(sighting);
  }

  /** The two peers never see each other (out of range), though each may see the others. */
  separate(a: string, b: string): void {
    this.#apart.add(`${a}\u0000${b}`).add(`${b}\u0000${a}`);
  }

  #introduce(a: Member, b: Member): void {
    if (!this.#visible(a, b)) return;
    a.events.up(this.#sighting(b));
    b.events.up(this.#sighting(a));
  }

  #visible(a: Member, b: Member): boolean {
    return a !== b && !this.#cut.has(a.label) && !this.#cut.has(b.label) && !this.#apart.has(`${a.label}\u0000${b.label}`);
  }

  #sighting(member: Member): LanSighting {
    const ad = member.advertisement;
    const txt = member.txt;
    return {
      peerKey: 'peerKey' in txt ? txt.peerKey : ad.peerKey,
      appID: 'appID' in txt ? txt.appID : ad.appID,
      protocolVersion: 'protocolVersion' in txt ? txt.protocolVersion : ad.protocolVersion,
      address: member.address,
      port: ad.port,
      name: instanceName(ad.peerKey),
    };
  }
}
