/**
 * A bounded first-in-first-out buffer that never blocks its writer: when full, the oldest item
 * is dropped and counted, so a slow reader loses the oldest entries and knows how many.
 */
export class RingBuffer<T> {
  readonly capacity: number;
  readonly #items: (T | undefined)[];
  #start = 0;
  #size = 0;
  #dropped = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`a ring buffer needs a capacity of at least 1, not ${capacity}`);
    this.capacity = capacity;
    this.#items = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    if (this.#size === this.capacity) {
      this.#items[this.#start] = item;
      this.#start = (this.#start + 1) % this.capacity;
      this.#dropped++;
      return;
    }
    this.#items[(this.#start + this.#size) % this.capacity] = item;
    this.#size++;
  }

  get size(): number {
    return this.#size;
  }

  /** Items dropped since the last `take()` (or ever, for `peek`-only use). */
  get dropped(): number {
    return this.#dropped;
  }

  /** The items in order, oldest first, leaving them in place. */
  toArray(): T[] {
    const out = new Array<T>(this.#size);
    for (let i = 0; i < this.#size; i++) out[i] = this.#items[(this.#start + i) % this.capacity] as T;
    return out;
  }

  /** Removes and returns every item, with the count dropped since the last take. */
  take(): { items: T[]; dropped: number } {
    const items = this.toArray();
    const dropped = this.#dropped;
    this.#items.fill(undefined);
    this.#start = 0;
    this.#size = 0;
    this.#dropped = 0;
    return { items, dropped };
  }
}
