/**
 * A LAN transport told to listen or advertise on a loopback address (`--lan-listen 127.0.0.1:0
 * --lan-interface 127.0.0.1`) runs, but no other machine can reach it: peers elsewhere never see
 * it, or dial an address that leads nowhere. The Mesh panel says so plainly (its LAN condition's
 * `warning`), rather than leaving a user to wonder why nobody connects.
 */
import type { LanOptions } from '../replication/transport-config.ts';

/** Is the host a loopback address (`127.x.x.x`, `::1`, `localhost`)? */
export function isLoopback(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** What to tell a user when the LAN options make this peer unreachable from other machines; undefined when they do not. */
export function loopbackWarning(lan: LanOptions): string | undefined {
  const listen = lan.listen?.host;
  const iface = lan.interface;
  const parts: string[] = [];
  if (listen !== undefined && isLoopback(listen)) parts.push(`it listens on ${listen}`);
  if (iface !== undefined && isLoopback(iface)) parts.push(`it advertises over the loopback interface ${iface}`);
  if (parts.length === 0) return undefined;
  return (
    `other machines cannot reach this peer: ${parts.join(' and ')}, which only this machine can use; ` +
    'peers elsewhere do not see it, or dial an address that leads nowhere. Listen on 0.0.0.0 (or the LAN address) and give the LAN interface’s address'
  );
}
