/**
 * A hybrid logical clock. Timestamps are 16 hexadecimal characters, 12 of wall-clock
 * milliseconds and 4 of a counter, so that they compare correctly as plain strings. The clock
 * never goes backwards, also across restarts (it resumes from the last stamp persisted) and
 * when the wall clock steps back; `observe` moves it past a timestamp received from a peer.
 */
export type Hlc = string & { readonly __brand: 'Hlc' };

const COUNTER_LIMIT = 0xffff;

export function formatHlc(ms: number, counter: number): Hlc {
  return (ms.toString(16).padStart(12, '0') + counter.toString(16).padStart(4, '0')) as Hlc;
}

export function parseHlc(hlc: string): { ms: number; counter: number } {
  if (!/^[0-9a-f]{16}$/.test(hlc)) throw new Error(`not a hybrid logical clock timestamp: ${JSON.stringify(hlc)}`);
  return { ms: Number.parseInt(hlc.slice(0, 12), 16), counter: Number.parseInt(hlc.slice(12), 16) };
}

export class HybridClock {
  readonly #now: () => number;
  #ms = 0;
  #counter = 0;

  /** @param now wall-clock milliseconds (injected); @param last the last timestamp issued before, if any. */
  constructor(now: () => number, last?: string) {
    this.#now = now;
    if (last !== undefined && last !== '') {
      const parsed = parseHlc(last);
      this.#ms = parsed.ms;
      this.#counter = parsed.counter;
    }
  }

  /** A new timestamp, greater than every one issued or observed before. */
  tick(): Hlc {
    const wall = Math.floor(this.#now());
    if (wall > this.#ms) {
      this.#ms = wall;
      this.#counter = 0;
    } else if (this.#counter >= COUNTER_LIMIT) {
      this.#ms += 1;
      this.#counter = 0;
    } else {
      this.#counter += 1;
    }
    return formatHlc(this.#ms, this.#counter);
  }

  /** Moves the clock past a remote timestamp so that later local stamps are greater. */
  observe(remote: string): void {
    const { ms, counter } = parseHlc(remote);
    if (ms > this.#ms || (ms === this.#ms && counter > this.#counter)) {
      this.#ms = ms;
      this.#counter = counter;
    }
  }

  /** The last timestamp issued or observed ('' before any). */
  get last(): string {
    return this.#ms === 0 && this.#counter === 0 ? '' : formatHlc(this.#ms, this.#counter);
  }
}
