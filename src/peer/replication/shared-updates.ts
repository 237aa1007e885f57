/**
 * Fan-out (issue 23): after a commit, the sessions of one shape that stand at one starting point
 * are sent one update, made once. The first such session builds it (reading the change, matching,
 * serialising); the others of its shape join while it is being made; once it is made it is
 * numbered and framed once, and every one of them sends the same frames (the same bytes).
 *
 * A shape is everything that decides the bytes of an update (session.ts, `#shareKey`): the
 * remote's subscription set and its version, the read rules of its certificate, the collections
 * it said it holds, the match budget, what it holds per query (`since`), the snapshot (`upto`) and
 * the collections looked at. Only a session that needs nothing of its own is eligible: no
 * documents asked for by name, no windowed (LIMIT/OFFSET) query, no document of its own (an echo)
 * after its starting point, nothing in flight. Every other session makes its own update, as
 * before. Acknowledgements, progress and flow control stay per session.
 *
 * Updates are numbered per session, increasing (the receiver checks only that): a shared update
 * takes the number after the highest last number among the sessions that joined it, so it can
 * skip numbers for some of them.
 */
import type { BuiltUpdate } from './update-builder.ts';

/** A text frame, and its UTF-8 bytes, made once for all the sessions that send it. */
export class EncodedFrame {
  readonly text: string;
  #bytes: Buffer | undefined;

  constructor(text: string) {
    this.text = text;
  }

  /** The frame as UTF-8, encoded on first use (a transport that takes text never asks). */
  get bytes(): Buffer {
    this.#bytes ??= Buffer.from(this.text, 'utf8');
    return this.#bytes;
  }
}

/** An update made once for the sessions of one shape. */
export interface SharedUpdate {
  /** The update's number for every session that joined it. */
  readonly number: number;
  readonly built: BuiltUpdate;
  /** One frame per chunk of `built`. */
  readonly frames: readonly EncodedFrame[];
}

/** How much sharing happened, since the peer started. */
export interface FanOutCounts {
  /** Updates built for a shape (each read, matched and serialised once). */
  readonly built: number;
  /** Sessions served one of them (the builder's own session included). */
  readonly served: number;
}

interface Making {
  /** The highest last update number of the sessions that joined. */
  last: number;
  result: Promise<SharedUpdate>;
}

/** Shapes whose update for the latest snapshot is kept for sessions that come to it later; beyond, the oldest are dropped. */
export const MAX_KEPT_UPDATES = 256;

export class SharedUpdates {
  readonly #making = new Map<string, Making>();
  /**
   * Updates made for the latest snapshot (`#upto`), by shape: a session whose acknowledgement
   * comes after the others' is ready later, for the same update. A newer snapshot drops them
   * (the store moved on: a session at the same starting point then reads up to the new one).
   */
  readonly #kept = new Map<string, SharedUpdate>();
  #upto = -1;
  #built = 0;
  #served = 0;

  get counts(): FanOutCounts {
    return { built: this.#built, served: this.#served };
  }

  /**
   * The update of the shape `key` (which includes the snapshot `upto`) for a session whose last
   * update was numbered `last`: the one made for `key` already (numbered above `last`), the one
   * being made now, or a new one made with `build` and framed with `frame` (one text per chunk,
   * given the update's number).
   */
  join(
    key: string,
    upto: number,
    last: number,
    build: () => Promise<BuiltUpdate>,
    frame: (built: BuiltUpdate, number: number) => string[],
  ): Promise<SharedUpdate> {
    this.#served++;
    if (upto !== this.#upto) {
      this.#kept.clear();
      this.#upto = upto;
    }
    const kept = this.#kept.get(key);
    if (kept !== undefined && kept.number > last) return Promise.resolve(kept);
    const making = this.#making.get(key);
    if (making !== undefined) {
      making.last = Math.max(making.last, last);
      return making.result;
    }
    this.#built++;
    const entry: Making = { last, result: this.#make(key, upto, () => entry.last, build, frame) };
    this.#making.set(key, entry);
    return entry.result;
  }

  async #make(
    key: string,
    upto: number,
    last: () => number,
    build: () => Promise<BuiltUpdate>,
    frame: (built: BuiltUpdate, number: number) => string[],
  ): Promise<SharedUpdate> {
    // Settles after `join` has registered the entry: sessions of the same turn join it meanwhile.
    await Promise.resolve();
    let built: BuiltUpdate;
    try {
      built = await build();
    } finally {
      // No session joins after this: the number below is above the last of every one that did.
      this.#making.delete(key);
    }
    const number = last() + 1;
    const made: SharedUpdate = { number, built, frames: frame(built, number).map((text) => new EncodedFrame(text)) };
    if (upto === this.#upto) {
      if (this.#kept.size >= MAX_KEPT_UPDATES) this.#kept.delete(this.#kept.keys().next().value as string);
      this.#kept.set(key, made);
    }
    return made;
  }
}
