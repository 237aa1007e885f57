/**
 * The waits an agent offers its driver, each bounded by the driver's timeout: a query until it
 * returns N rows, and a count of a collection's documents as commits put them.
 */
import type { Sync } from '../../peer/host.ts';
import { epochNow, type AgentCalls } from './protocol.ts';

/** `waitRows` re-runs its query at least this often, besides after each commit. */
const WAIT_POLL_MS = 250;

/** Resolves when `dql` returns exactly `count` rows (re-run after each commit); rejects after `timeoutMs` with the last rows. */
export function waitRows(sync: Sync, { dql, args, count, timeoutMs }: AgentCalls['waitRows']['params']): Promise<AgentCalls['waitRows']['result']> {
  return new Promise((resolve, reject) => {
    let last: unknown[] = [];
    let running = false;
    let again = false;
    let done = false;
    const finish = (error: Error | undefined, items: unknown[]): void => {
      if (done) return;
      done = true;
      off();
      clearInterval(poll);
      clearTimeout(timer);
      if (error === undefined) resolve({ items, at: epochNow() });
      else reject(error);
    };
    const check = async (): Promise<void> => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          last = (await sync.store.execute(dql, args)).items;
          if (last.length === count) finish(undefined, last);
        } while (again && !done);
      } catch (error) {
        finish(error as Error, last);
      } finally {
        running = false;
      }
    };
    const off = sync.store.onCommit(() => void check());
    const poll = setInterval(() => void check(), WAIT_POLL_MS);
    const timer = setTimeout(
      () =>
        finish(
          new Error(`${dql} returned ${last.length} row(s), not ${count}, within ${timeoutMs} ms; last rows: ${JSON.stringify(last).slice(0, 2000)}`),
          last,
        ),
      timeoutMs,
    );
    void check();
  });
}

interface Watch {
  readonly collection: string;
  readonly ids: Set<string>;
  /** When the count last grew. */
  at: number;
  /** Called whenever the count grows. */
  grew: (() => void) | undefined;
  readonly off: () => void;
}

/** Counts of collections' documents, by id, as commits put them (`watchCount`, `waitCount`). */
export class CountWatches {
  readonly #sync: Sync;
  readonly #watches = new Map<number, Watch>();
  #next = 1;

  constructor(sync: Sync) {
    this.#sync = sync;
  }

  async watch(collection: string): Promise<AgentCalls['watchCount']['result']> {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(collection)) throw new Error(`not a collection name: ${collection}`);
    const ids = new Set<string>();
    // Listening first, then reading what is there: a document in both is counted once.
    const watch: Watch = {
      collection,
      ids,
      at: epochNow(),
      grew: undefined,
      off: this.#sync.store.onCommit((txn) => {
        const before = ids.size;
        for (const change of txn.changes) if (change.collection === collection && change.kind === 'put') ids.add(JSON.stringify(change.id));
        if (ids.size > before) {
          watch.at = epochNow();
          watch.grew?.();
        }
      }),
    };
    const id = this.#next++;
    this.#watches.set(id, watch);
    try {
      for (const item of (await this.#sync.store.execute(`SELECT _id FROM ${collection}`)).items) ids.add(JSON.stringify((item as { _id: unknown })._id));
    } catch (error) {
      this.#end(id);
      throw error;
    }
    return { watch: id, held: ids.size };
  }

  wait({ watch: id, count, timeoutMs }: AgentCalls['waitCount']['params']): Promise<AgentCalls['waitCount']['result']> {
    const watch = this.#watches.get(id);
    if (watch === undefined) return Promise.reject(new Error(`no watch ${id}`));
    return new Promise<AgentCalls['waitCount']['result']>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#end(id);
        reject(new Error(`${watch.collection} holds ${watch.ids.size} document(s), not ${count}, after ${timeoutMs} ms`));
      }, timeoutMs);
      const check = (): void => {
        if (watch.ids.size < count) return;
        clearTimeout(timer);
        this.#end(id);
        resolve({ count: watch.ids.size, at: watch.at });
      };
      watch.grew = check;
      check();
    });
  }

  #end(id: number): void {
    this.#watches.get(id)?.off();
    this.#watches.delete(id);
  }
}
