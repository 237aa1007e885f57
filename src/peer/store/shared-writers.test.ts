/**
 * A store whose database another process writes too (Big Peer nodes on one PostgreSQL database),
 * played here by writing to its in-memory storage behind its back: its next write takes the
 * database's next txn_id and stamps after the other's last stamp, and it tells of the other's
 * commits (onExternalCommit) and re-runs its observers for them.
 */
import { describe, expect, it } from 'vitest';
import { LogHub } from '../log/log-hub.ts';
import { ManualTimers } from '../time.ts';
import { Store } from './store.ts';
import { MemoryStorage } from '../storage/memory-storage.ts';
import type { ExternalCommit, StorageEngine } from '../storage/types.ts';

function storeOn(storage: StorageEngine, timers = new ManualTimers()): Store {
  return new Store({ storage, peerKey: 'node-key', timers, logger: new LogHub({ minimumLogLevel: 'ERROR' }).logger('store'), schedule: (fn) => fn() });
}

/** The in-memory storage, with commits of "another process" that it announces like PostgreSQL's. */
class SharedStorage extends MemoryStorage {
  readonly #listeners = new Set<(commit: ExternalCommit) => void>();
  onExternalCommit(listener: (commit: ExternalCommit) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  /** Another process commits `txnId` with stamp `hlc`, writing a document of `collection`. */
  otherCommits(txnId: number, hlc: string, collection: string, tell: boolean): void {
    this.write((w) => {
      w.put(collection, { id: `other-${txnId}`, value: { _id: `other-${txnId}` }, meta: { c: [hlc as never, 'node-key'] }, txnId });
      w.setClock({ lastTxnId: txnId, lastHlc: hlc });
    });
    if (tell) for (const listener of this.#listeners) listener({ txnId, collections: [collection] });
  }
}

const FUTURE_HLC = `${Date.UTC(2030, 0, 1).toString(16).padStart(12, '0')}0000`;

describe('a store whose database another process writes too', () => {
  it('takes the next txn_id after the other’s commit and stamps its write after the other’s stamp', async () => {
    const storage = new SharedStorage();
    const store = storeOn(storage);
    await store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'mine' })");
    // Told of it first (as by a notification, which carries no stamp), then writing.
    storage.otherCommits(7, FUTURE_HLC, 'orders', true);
    const result = await store.execute("UPDATE orders SET paid = true WHERE _id = 'mine'");
    expect(result.commitId).toBe(8);
    const meta = store.readNow((r) => r.get('orders', 'mine')?.meta);
    const stamp = Object.values(meta?.f ?? {})[0];
    expect(stamp?.[0]).toBeDefined();
    expect((stamp?.[0] ?? '') > FUTURE_HLC).toBe(true);
    expect(store.lastTxnId).toBe(8);
  });

  it('tells of the other’s commits once each, and re-runs the observers of their collections', async () => {
    const storage = new SharedStorage();
    const store = storeOn(storage);
    const told: ExternalCommit[] = [];
    store.onExternalCommit((commit) => told.push(commit));
    const seen: number[] = [];
    store.registerObserver('SELECT * FROM orders', (event) => seen.push(event.items.length));
    storage.otherCommits(1, FUTURE_HLC, 'orders', true);
    storage.otherCommits(1, FUTURE_HLC, 'orders', true); // told twice: once is enough
    expect(told).toEqual([{ txnId: 1, collections: ['orders'] }]);
    expect(store.lastTxnId).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.at(-1)).toBe(1);
  });
});
