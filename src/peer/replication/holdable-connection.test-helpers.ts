/**
 * TEST HELPERS for replication tests that need to hold frames back: a connection whose incoming
 * frames wait until released, and a way to let the event loop turn.
 */
import type { Connection, ConnectionEvents } from './connection.ts';

/** Lets `n` turns of the event loop pass. */
export const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

/** A connection whose incoming frames can be held back and let through one at a time. */
export function holdable(inner: Connection): { connection: Connection; hold(): void; releaseOne(): boolean; releaseAll(): void } {
  let events: ConnectionEvents | undefined;
  let held: string[] | undefined;
  const connection: Connection = {
    id: inner.id,
    type: inner.type,
    dialed: inner.dialed,
    remoteAddress: inner.remoteAddress,
    get isOpen() {
      return inner.isOpen;
    },
    send: (text) => inner.send(text),
    close: (code, reason) => inner.close(code, reason),
    listen(target) {
      events = target;
      inner.listen({ message: (text) => (held === undefined ? target.message(text) : held.push(text)), close: (code, reason) => target.close(code, reason) });
    },
  };
  return {
    connection,
    hold: () => void (held ??= []),
    releaseOne: () => {
      const text = held?.shift();
      if (text !== undefined) events?.message(text);
      return text !== undefined;
    },
    releaseAll: () => {
      const all = held ?? [];
      held = undefined;
      for (const text of all) events?.message(text);
    },
  };
}
