/**
 * The LAN transport: a WebSocket listener on the LAN, this peer advertised over discovery, and a
 * dialer for every compatible peer it sees (same app id, a protocol version it speaks). The
 * sessions are the replicator's, exactly as with the Big Peer: the same announcement (each side's
 * certificate checked offline against the issuer it trusts, and a signed challenge), the same
 * permissions, the same election when two connections reach one peer.
 */
import { LOG_EVENTS } from '../../shared/log.ts';
import { OUTER_PROTOCOL_VERSION } from '../../shared/protocol/announce.ts';
import type { Logger } from '../log/log-hub.ts';
import { LAN_PEERS_KEPT, type MeshTracker } from '../replication/mesh-tracker.ts';
import type { Replicator } from '../replication/replicator.ts';
import { WebSocketDialer } from '../replication/ws-dialer.ts';
import { WebSocketListener } from '../replication/ws-listener.ts';
import type { Timers } from '../time.ts';
import type { LanOptions } from '../replication/transport-config.ts';
import { LAN_SERVICE_TYPE, instanceName, type LanDiscovery, type LanSighting } from './discovery.ts';

/**
 * When two peers see each other, the one with the smaller peer key dials at once and the other
 * waits this long, then dials only if no session came: usually one connection, not two that
 * then need an election. (If both dial anyway, the replicator elects one.)
 */
export const LAN_TIE_BREAK_MS = 1_500;

/** A LAN peer that refused this one's certificate (or was refused) is dialed again after 5 minutes. */
export const LAN_REFUSED_REDIAL_MS = 5 * 60_000;

export interface LanTransportOptions {
  readonly lan: LanOptions;
  readonly discovery: LanDiscovery;
  readonly replicator: Replicator;
  readonly logger: Logger;
  readonly timers: Timers;
  readonly tracker: MeshTracker;
  readonly peerKey: string;
  readonly appID: string;
  readonly reconnect?: { readonly minDelayMs?: number; readonly maxDelayMs?: number };
  /** Why this peer may not announce itself now (its certificate expired), or undefined: dialers wait meanwhile. */
  readonly certificateProblem?: () => string | undefined;
}

/** Why the LAN transport could not start: it could not listen, or could not open mDNS. */
export class LanStartError extends Error {
  readonly condition: 'TcpListenFailure' | 'MdnsFailure';
  constructor(condition: 'TcpListenFailure' | 'MdnsFailure', message: string, options?: ErrorOptions) {
    super(message, options);
    this.condition = condition;
  }
}

/** Why a seen peer is not synced with; undefined when it is. */
export function incompatibility(sighting: Pick<LanSighting, 'peerKey' | 'appID' | 'protocolVersion'>, appID: string): string | undefined {
  if (sighting.peerKey === undefined || sighting.peerKey === '') return 'its advertisement has no peer key';
  if (sighting.appID !== appID) return `another app (${sighting.appID ?? 'none'}): only peers of ${appID} sync with this one`;
  if (sighting.protocolVersion !== OUTER_PROTOCOL_VERSION) {
    return `outer_protocol_version ${sighting.protocolVersion ?? 'missing'} is not supported (this peer speaks ${OUTER_PROTOCOL_VERSION})`;
  }
  return undefined;
}

export class LanTransport {
  readonly #options: LanTransportOptions;
  readonly #listener: WebSocketListener;
  /** One dialer per seen peer (by service instance name). */
  readonly #dialers = new Map<string, WebSocketDialer>();
  /** The reason last logged for each peer not synced with, so that it is logged once. */
  readonly #ignored = new Map<string, string>();
  /** Service names whose advertisement left: their dialers are the first dropped past the cap. */
  readonly #left = new Set<string>();
  /** Dialers of an address a peer moved away from, kept until their live connection ends. */
  readonly #retired = new Set<WebSocketDialer>();
  #dialing = false;
  #stopped = false;

  private constructor(options: LanTransportOptions, listener: WebSocketListener) {
    this.#options = options;
    this.#listener = listener;
  }

  /** Listens, then advertises and browses. Throws `LanStartError` (and leaves nothing running). */
  static async start(options: LanTransportOptions): Promise<LanTransport> {
    const listen = { host: options.lan.listen?.host ?? '0.0.0.0', port: options.lan.listen?.port ?? 0 };
    let listener: WebSocketListener;
    try {
      listener = await WebSocketListener.start(listen, options.replicator, options.logger, { transport: 'LAN' });
    } catch (error) {
      throw new LanStartError('TcpListenFailure', `the LAN transport cannot listen on ${listen.host}:${listen.port}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const transport = new LanTransport(options, listener);
    try {
      await options.discovery.start(
        { peerKey: options.peerKey, appID: options.appID, protocolVersion: OUTER_PROTOCOL_VERSION, port: listener.port },
        {
          up: (sighting) => transport.#seen(sighting),
          down: (name) => transport.#gone(name),
          warning: (message) => options.logger.warn(LOG_EVENTS.lanWarning, { reason: message }),
        },
      );
    } catch (error) {
      listener.stop();
      await options.discovery.stop().catch(() => {});
      throw new LanStartError('MdnsFailure', `the LAN transport cannot advertise or browse over mDNS: ${(error as Error).message}`, { cause: error });
    }
    options.logger.info(LOG_EVENTS.lanStarted, {
      listen_address: listener.url,
      service: `_${options.lan.serviceType ?? LAN_SERVICE_TYPE}._tcp.local`,
      name: instanceName(options.peerKey),
    });
    return transport;
  }

  /** `ws://host:port/_sync/ws` of the LAN listener. */
  get listenUrl(): string {
    return this.#listener.url;
  }

  get port(): number {
    return this.#listener.port;
  }

  /** This peer holds a certificate: the peers seen so far, and later, are dialed. */
  startDialing(): void {
    if (this.#stopped) return;
    if (this.#dialing) {
      // Called again when the certificate changed: dialers waiting for a valid one dial now.
      for (const dialer of this.#dialers.values()) dialer.certificateChanged();
      return;
    }
    this.#dialing = true;
    for (const dialer of this.#dialers.values()) dialer.start();
  }

  /** Stops dialing, listening and advertising (goodbye packets go out). */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const dialer of [...this.#dialers.values(), ...this.#retired]) dialer.stop();
    this.#dialers.clear();
    this.#retired.clear();
    this.#listener.stop();
    await this.#options.discovery.stop();
  }

  #seen(sighting: LanSighting): void {
    const { tracker, logger, appID, peerKey } = this.#options;
    if (this.#stopped || sighting.peerKey === peerKey) return; // Its own advertisement.
    const url = `ws://${sighting.address}:${sighting.port}/_sync/ws`;
    const reason = incompatibility(sighting, appID);
    tracker.lanSeen({
      name: sighting.name,
      peerKey: sighting.peerKey,
      appID: sighting.appID,
      protocolVersion: sighting.protocolVersion,
      url,
      compatible: reason === undefined,
      reason,
    });
    const existing = this.#dialers.get(sighting.name);
    this.#left.delete(sighting.name);
    if (reason !== undefined) {
      if (this.#ignored.get(sighting.name) !== reason) {
        this.#ignored.set(sighting.name, reason);
        logger.info(LOG_EVENTS.lanPeerIgnored, { name: sighting.name, connect_address: url, remote: sighting.peerKey ?? '', reason });
      }
      if (existing !== undefined) this.#drop(sighting.name, existing);
      this.#trim();
      return;
    }
    this.#ignored.delete(sighting.name);
    if (existing !== undefined && existing.url === url) {
      existing.setRedial(true);
      return;
    }
    const remoteKey = sighting.peerKey as string;
    if (existing !== undefined) {
      // It moved to another address (or an answer says so). A session running over the old one
      // is kept, not cut on the word of one mDNS packet: its dialer retires once it ends.
      this.#dialers.delete(sighting.name);
      if (this.#options.replicator.hasSession(remoteKey)) {
        existing.setRedial(false);
        this.#retired.add(existing);
      } else {
        existing.stop();
        tracker.forgetDialed(existing.url);
      }
    }
    const dialer = new WebSocketDialer({
      url,
      replicator: this.#options.replicator,
      logger,
      timers: this.#options.timers,
      minDelayMs: this.#options.reconnect?.minDelayMs,
      maxDelayMs: this.#options.reconnect?.maxDelayMs,
      tracker,
      transport: 'LAN',
      remotePeerKey: remoteKey,
      firstDialDelayMs: peerKey < remoteKey ? 0 : LAN_TIE_BREAK_MS,
      refusedDelayMs: LAN_REFUSED_REDIAL_MS,
      certificateProblem: this.#options.certificateProblem,
    });
    this.#dialers.set(sighting.name, dialer);
    if (this.#dialing) dialer.start();
    this.#trim();
  }

  /** Stops a dialer for good and forgets its row in the mesh. */
  #drop(name: string, dialer: WebSocketDialer): void {
    dialer.stop();
    this.#dialers.delete(name);
    this.#left.delete(name);
    this.#options.tracker.forgetDialed(dialer.url);
  }

  /**
   * Keeps at most LAN_PEERS_KEPT dialers and remembered refusals (a LAN may hold many peers, or
   * a host forging advertisements): past that, those of peers that left go first, then the oldest.
   */
  #trim(): void {
    for (const name of [...this.#left, ...this.#dialers.keys()]) {
      if (this.#dialers.size <= LAN_PEERS_KEPT) break;
      const dialer = this.#dialers.get(name);
      if (dialer !== undefined && !this.#options.replicator.hasSession(dialer.remotePeerKey ?? '')) this.#drop(name, dialer);
    }
    for (const names of [this.#ignored, this.#left]) {
      for (const name of names.keys()) {
        if (names.size <= LAN_PEERS_KEPT) break;
        names.delete(name);
      }
    }
    for (const dialer of this.#retired) {
      if (dialer.isConnected) continue;
      dialer.stop();
      this.#retired.delete(dialer);
      this.#options.tracker.forgetDialed(dialer.url);
    }
  }

  #gone(name: string): void {
    if (this.#stopped) return;
    this.#options.tracker.lanGone(name);
    this.#left.add(name);
    this.#ignored.delete(name);
    // A session still open is kept (the peer may only have stopped advertising); it is not redialed.
    this.#dialers.get(name)?.setRedial(false);
    this.#trim();
  }
}
