/**
 * A storage engine that can crash: it forwards to a real one (SQLite, or the in-memory twin) until
 * `crash()`, and from then on refuses every read, write and commit, as a process that died
 * would. What was committed before the crash is all that is left; the write transaction open
 * at that moment is rolled back. A new `CrashableStorage` over the same backing store is the
 * process starting again. (The in-memory twin stays open under it across crashes: it is the
 * "disk"; SQLite is closed, which releases its directory lock.)
 */
import type {
  DiskUsage,
  GroupedWriteTransaction,
  ReadTransaction,
  SharedWriters,
  StorageEngine,
  StorageReader,
  StorageWriter,
  WriteTransaction,
} from '../../peer/storage/types.ts';

export class CrashedError extends Error {
  constructor() {
    super('the simulated process crashed');
  }
}

export class CrashableStorage implements StorageEngine {
  readonly #inner: StorageEngine & SharedWriters;
  /** Close the backing store when this one closes or crashes (SQLite); keep it (the in-memory "disk"). */
  readonly #closeInner: boolean;
  #dead = false;
  #closed = false;
  #openWrite: GroupedWriteTransaction | undefined;

  constructor(inner: StorageEngine, closeInner: boolean) {
    this.#inner = inner;
    this.#closeInner = closeInner;
  }

  get kind(): StorageEngine['kind'] {
    return this.#inner.kind;
  }

  get isCrashed(): boolean {
    return this.#dead;
  }

  #alive(): void {
    if (this.#dead) throw new CrashedError();
  }

  read<T>(fn: (reader: StorageReader) => T): T {
    this.#alive();
    return this.#inner.read(fn);
  }

  write<T>(fn: (writer: StorageWriter) => T): T {
    this.#alive();
    return this.#inner.write(fn);
  }

  beginRead(): ReadTransaction {
    this.#alive();
    return this.#inner.beginRead();
  }

  beginWrite(): WriteTransaction {
    this.#alive();
    return this.#track(this.#inner.beginWrite());
  }

  acquireWrite(options?: { readonly alone?: boolean }): GroupedWriteTransaction | Promise<GroupedWriteTransaction> {
    this.#alive();
    const opened = this.#inner.acquireWrite?.(options) ?? this.#inner.beginWrite();
    return opened instanceof Promise ? opened.then((tx) => this.#track(tx)) : this.#track(opened);
  }

  /** Commits only while alive; after a crash the transaction is already gone. */
  #track(tx: GroupedWriteTransaction): GroupedWriteTransaction {
    this.#openWrite = tx;
    let done = false;
    const finish = (): void => {
      done = true;
      if (this.#openWrite === tx) this.#openWrite = undefined;
    };
    return {
      writer: tx.writer,
      commit: () => {
        if (this.#dead) throw new CrashedError();
        const durable = tx.commit();
        finish();
        return durable;
      },
      rollback: () => {
        if (done || this.#dead) return finish();
        tx.rollback();
        finish();
      },
    };
  }

  sizeOnDisk(): number {
    return this.#dead ? 0 : this.#inner.sizeOnDisk();
  }

  diskUsage(): DiskUsage {
    return this.#dead ? { databaseBytes: 0, walBytes: 0 } : this.#inner.diskUsage();
  }

  reclaimSpace(): void {
    this.#alive();
    this.#inner.reclaimSpace();
  }

  freeBytes(): number {
    return this.#dead ? 0 : this.#inner.freeBytes();
  }

  /** The process dies now: the open write transaction is rolled back, nothing more reaches the store. */
  crash(): void {
    if (this.#dead) return;
    this.#dead = true;
    const open = this.#openWrite;
    this.#openWrite = undefined;
    try {
      open?.rollback();
    } catch {
      // Nothing of it was committed either way.
    }
    if (this.#closeInner) this.#inner.close();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#dead) return;
    if (this.#closeInner) this.#inner.close();
  }
}
