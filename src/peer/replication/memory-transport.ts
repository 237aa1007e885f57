/**
 * The in-memory twin of a transport: two linked connections in one process. Frames are
 * delivered asynchronously and in order, as over a socket, so that replication tests are fast,
 * deterministic in what they deliver, and still exercise every await of the real path.
 */
import { Inbox, connectionId, type Connection, type ConnectionEvents } from './connection.ts';

let inFlight = 0;

/** Frames sent over in-memory connections and not yet delivered (tests wait for 0). */
export function memoryFramesInFlight(): number {
  return inFlight;
}

class MemoryConnection implements Connection {
  readonly id = connectionId('Memory');
  readonly type = 'Memory' as const;
  readonly dialed: boolean;
  readonly remoteAddress: string;
  readonly inbox = new Inbox();
  other: MemoryConnection | undefined;
  #open = true;

  constructor(dialed: boolean, remoteAddress: string) {
    this.dialed = dialed;
    this.remoteAddress = remoteAddress;
  }

  get isOpen(): boolean {
    return this.#open;
  }

  send(text: string): void {
    if (!this.#open) return;
    const other = this.other;
    inFlight++;
    setImmediate(() => {
      inFlight--;
      if (other !== undefined && other.#open) other.inbox.message(text);
    });
  }

  close(code: number, reason: string): void {
    if (!this.#open) return;
    this.#open = false;
    const other = this.other;
    setImmediate(() => {
      this.inbox.close(code, reason);
      if (other !== undefined && other.#open) {
        other.#open = false;
        other.inbox.close(code, reason);
      }
    });
  }

  listen(events: ConnectionEvents): void {
    this.inbox.listen(events);
  }
}

/** Two connected ends: `dialer` (dialed = true) and `acceptor`. */
export function memoryConnectionPair(names: { dialer?: string; acceptor?: string } = {}): { dialer: Connection; acceptor: Connection } {
  const dialer = new MemoryConnection(true, names.acceptor ?? 'memory://acceptor');
  const acceptor = new MemoryConnection(false, names.dialer ?? 'memory://dialer');
  dialer.other = acceptor;
  acceptor.other = dialer;
  return { dialer, acceptor };
}
