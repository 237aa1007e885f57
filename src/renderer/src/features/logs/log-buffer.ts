/**
 * The Logs panel's memory: a ring of the most recent entries (100,000 by default) with the
 * filtered view kept incrementally, so that a batch costs O(batch), not O(entries held).
 *
 * Every entry that arrives gets an ordinal (0, 1, 2, … for the life of the buffer); the ring
 * holds ordinals `first … next-1` and the view is the ascending list of held ordinals that pass
 * the filter. Evicting from the ring drops ordinals from the view's head; a filter change
 * recomputes the view once over what is held. Over many entries that recomputation is spread
 * over steps (`beginFilter`, `refilterStep`), so that typing a filter during a flood never holds
 * the main thread for long: until the last step, the list keeps showing the previous filter's
 * view, kept up to date, and then switches at once.
 *
 * Nothing is lost silently. The promise, checked by the tests:
 * `received = held + pendingWhilePaused + evicted + cleared`, where `evicted` counts entries the
 * ring pushed out (it was full) and `cleared` those the user cleared. What the peer dropped
 * before sending (`peerDropped`) is counted apart: those entries never arrived.
 *
 * The buffer is mutable on purpose: copying 100,000 entries per batch to keep the store
 * immutable would be the O(n) work this module exists to avoid. The store keeps one instance
 * and a `version` number that changes whenever it does.
 */
import { LOG_LEVELS, type LogEntry, type LogLevel } from '../../../../shared/log.ts';
import { SHOW_EVERYTHING, compileFilter, searchText, type CompiledFilter, type LogFilter } from './log-filter.ts';

export const DEFAULT_LOG_CAPACITY = 100_000;

/** A filter change over at most this many held entries is applied at once. */
export const REFILTER_AT_ONCE = 5_000;

/** A filter change under way over the entries held (see `beginFilter`). */
interface Refilter {
  readonly compiled: CompiledFilter;
  /** Ordinals below `cursor` that pass, ascending. */
  readonly scanned: number[];
  cursor: number;
  /** The ring's end when the change began: later entries are checked as they arrive (`tail`). */
  readonly end: number;
  readonly tail: number[];
}

export type LevelCounts = Record<LogLevel, number>;

/** Where the stream stood at a moment: the newest `seq` held, and how many entries had arrived. */
export interface GapMark {
  readonly newestSeq: number | undefined;
  readonly received: number;
}

const zeroCounts = (): LevelCounts => ({ ERROR: 0, WARN: 0, INFO: 0, DEBUG: 0, VERBOSE: 0 });

export class LogBuffer {
  readonly capacity: number;
  readonly #slots: (LogEntry | undefined)[];
  /** Each slot's entry's search text (log-filter.ts `searchText`), built the first time a text query needs it. */
  readonly #texts: (string | undefined)[];
  #first = 0;
  #next = 0;
  #compiled: CompiledFilter = compileFilter(SHOW_EVERYTHING);
  #refilter: Refilter | undefined;
  #view: number[] = [];
  #viewHead = 0;
  #paused = false;
  #pending: LogEntry[] = [];
  #pendingHead = 0;
  readonly #levels: LevelCounts = zeroCounts();
  readonly #components = new Map<string, number>();
  #received = 0;
  #evicted = 0;
  #cleared = 0;
  #peerDropped = 0;
  #shown = 0;

  constructor(capacity: number = DEFAULT_LOG_CAPACITY) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, not ${capacity}`);
    this.capacity = capacity;
    this.#slots = new Array<LogEntry | undefined>(capacity);
    this.#texts = new Array<string | undefined>(capacity);
  }

  /** Entries that arrived (from batches and from the peer's history). */
  get received(): number {
    return this.#received;
  }

  /** Entries the ring pushed out because it was full. */
  get evicted(): number {
    return this.#evicted;
  }

  /** Entries the user cleared. */
  get cleared(): number {
    return this.#cleared;
  }

  /** Entries the peer lost for this inspector before sending them (it fell behind). */
  get peerDropped(): number {
    return this.#peerDropped;
  }

  /** Entries held in the ring (shown or filtered out). */
  get held(): number {
    return this.#next - this.#first;
  }

  /** Entries that arrived while paused, waiting to be shown on resume. */
  get pending(): number {
    return this.#pending.length - this.#pendingHead;
  }

  get paused(): boolean {
    return this.#paused;
  }

  get filter(): CompiledFilter {
    return this.#compiled;
  }

  /** Entries in the view (held and passing the filter). */
  get size(): number {
    return this.#view.length - this.#viewHead;
  }

  /**
   * Marks what the list shows from now on: `shownSize` stays at the view's size now while batches
   * keep arriving, until the next call. The store calls it whenever it tells of a change.
   */
  publish(): void {
    this.#shown = this.size;
  }

  /**
   * The view's size when last published (or less, if entries left it since). The list renders
   * this many rows, not `size`: a render between two publications, such as the one the
   * virtualizer makes when the list scrolls to follow, then draws the same rows as the render
   * before it (nothing to restyle or lay out) instead of the entries that arrived meanwhile.
   */
  get shownSize(): number {
    return Math.min(this.#shown, this.size);
  }

  /** The `index`-th entry of the view, oldest first. */
  at(index: number): LogEntry {
    const entry = this.#slots[this.ordinalAt(index) % this.capacity];
    if (entry === undefined) throw new RangeError(`no entry at ${index}`);
    return entry;
  }

  /** A key for the `index`-th entry of the view that no other entry ever has. */
  ordinalAt(index: number): number {
    const ordinal = this.#view[this.#viewHead + index];
    if (ordinal === undefined) throw new RangeError(`no entry at ${index} of ${this.size}`);
    return ordinal;
  }

  /** The view's entries, oldest first (for export). */
  *entries(): IterableIterator<LogEntry> {
    for (let i = this.#viewHead; i < this.#view.length; i++) {
      yield this.#slots[(this.#view[i] ?? 0) % this.capacity] as LogEntry;
    }
  }

  /** Held entries per level (before filtering). */
  levelCounts(): Readonly<LevelCounts> {
    return this.#levels;
  }

  /** Every component seen so far, sorted, with how many of its entries are held. */
  components(): readonly (readonly [string, number])[] {
    return [...this.#components].sort(([a], [b]) => a.localeCompare(b));
  }

  /** Takes a batch as it arrived. While paused it waits (and is counted) until resume. */
  push(entries: readonly LogEntry[]): void {
    this.#received += entries.length;
    if (this.#paused) {
      for (const entry of entries) this.#pending.push(entry);
      this.#trimPending();
    } else {
      for (const entry of entries) this.#append(entry);
      this.#trimView();
    }
  }

  /** Adds what a batch says the peer dropped since the previous batch. */
  addPeerDropped(sinceLastBatch: number): void {
    this.#peerDropped += sinceLastBatch;
  }

  /**
   * Takes the peer's total from the `logs:recent` snapshot. Batches and the answer arrive in the
   * order the peer sent them, so the total already covers every batch that came before it: the
   * larger of the two is right, and adding them would count drops twice.
   */
  reportPeerDropped(total: number): void {
    this.#peerDropped = Math.max(this.#peerDropped, total);
  }

  /**
   * Merges the peer's recent history (`logs:recent`, oldest first) with what batches already
   * brought: only the entries older than the oldest one held are new (a stream's `seq` grows).
   */
  mergeHistory(history: readonly LogEntry[]): number {
    const oldest = this.#oldestSeq();
    const older = oldest === undefined ? history : history.filter((entry) => entry.seq < oldest);
    if (older.length === 0) return 0;
    const held: LogEntry[] = [];
    for (let o = this.#first; o < this.#next; o++) held.push(this.#slots[o % this.capacity] as LogEntry);
    this.#resetRing();
    this.#received += older.length;
    for (const entry of older) this.#append(entry);
    for (const entry of held) this.#append(entry);
    return older.length;
  }

  /** Where the stream stands: taken when the link to the peer comes back, for `fillGap`. */
  mark(): GapMark {
    return { newestSeq: this.#newestSeq(), received: this.#received };
  }

  /**
   * After the link to the peer dropped and came back (events pushed meanwhile are lost): adds
   * the entries of the peer's recent history logged after `mark.newestSeq`, in their place
   * before whatever arrived since the mark. A peer that restarted (its `seq` started again)
   * gives all its history. Returns how many entries were recovered. O(entries held), once.
   */
  fillGap(history: readonly LogEntry[], mark: GapMark): number {
    const all: LogEntry[] = [];
    for (let o = this.#first; o < this.#next; o++) all.push(this.#slots[o % this.capacity] as LogEntry);
    for (let i = this.#pendingHead; i < this.#pending.length; i++) all.push(this.#pending[i] as LogEntry);
    const later = Math.min(all.length, Math.max(0, this.#received - mark.received));
    const split = all.length - later;
    const laterSeqs = new Set(all.slice(split).map((e) => e.seq));
    const newest = mark.newestSeq;
    const restarted = newest !== undefined && history.length > 0 && (history[history.length - 1] as LogEntry).seq < newest;
    const missing = history.filter((e) => (newest === undefined || restarted || e.seq > newest) && !laterSeqs.has(e.seq));
    if (missing.length === 0) return 0;
    const sequence = [...all.slice(0, split), ...missing, ...all.slice(split)];
    // While paused, the list keeps as many entries as it showed; the rest wait for resume.
    const shown = this.#paused ? this.held : sequence.length;
    this.#received += missing.length;
    this.#pending = [];
    this.#pendingHead = 0;
    this.#resetRing();
    for (const entry of sequence.slice(0, shown)) this.#append(entry);
    this.#pending = sequence.slice(shown);
    this.#trimPending();
    return missing.length;
  }

  /** Applies a filter at once, over every entry held. */
  setFilter(filter: LogFilter): void {
    this.#refilter = undefined;
    this.#compiled = compileFilter(filter);
    this.#rebuildView();
  }

  /**
   * Starts a filter change. Over at most REFILTER_AT_ONCE held entries it is applied at once
   * (answers false); over more it answers true, and `refilterStep` applies it a slice at a time
   * while the view keeps the previous filter (entries that arrive meanwhile are checked against
   * both). A later filter change replaces one under way.
   */
  beginFilter(filter: LogFilter): boolean {
    if (this.held <= REFILTER_AT_ONCE) {
      this.setFilter(filter);
      return false;
    }
    this.#refilter = { compiled: compileFilter(filter), scanned: [], cursor: this.#first, end: this.#next, tail: [] };
    return true;
  }

  /** A filter change under way. */
  get refiltering(): boolean {
    return this.#refilter !== undefined;
  }

  /**
   * Checks up to `entries` more held entries against the filter under way; once all are, the
   * view switches to it. Answers true when no change is under way any more.
   */
  refilterStep(entries: number): boolean {
    const r = this.#refilter;
    if (r === undefined) return true;
    const cursor = Math.max(r.cursor, this.#first);
    const stop = Math.min(r.end, cursor + Math.max(1, entries));
    for (let o = cursor; o < stop; o++) {
      if (this.#passes(r.compiled, o)) r.scanned.push(o);
    }
    r.cursor = stop;
    if (stop < r.end) return false;
    // Entries evicted since the change began leave the view's head.
    const first = this.#first;
    const view = [...r.scanned.filter((o) => o >= first), ...r.tail.filter((o) => o >= first)];
    this.#compiled = r.compiled;
    this.#view = view;
    this.#viewHead = 0;
    this.#refilter = undefined;
    return true;
  }

  pause(): void {
    this.#paused = true;
  }

  /** Shows what arrived while paused; returns how many entries that was. */
  resume(): number {
    const count = this.pending;
    this.#paused = false;
    for (let i = this.#pendingHead; i < this.#pending.length; i++) this.#append(this.#pending[i] as LogEntry);
    this.#pending = [];
    this.#pendingHead = 0;
    this.#trimView();
    return count;
  }

  /** Forgets every held entry (and any waiting while paused); they are counted as cleared. */
  clear(): void {
    this.#cleared += this.held + this.pending;
    this.#pending = [];
    this.#pendingHead = 0;
    this.#resetRing();
  }

  #newestSeq(): number | undefined {
    if (this.pending > 0) return (this.#pending[this.#pending.length - 1] as LogEntry).seq;
    if (this.held > 0) return (this.#slots[(this.#next - 1) % this.capacity] as LogEntry).seq;
    return undefined;
  }

  #oldestSeq(): number | undefined {
    if (this.held > 0) return (this.#slots[this.#first % this.capacity] as LogEntry).seq;
    if (this.pending > 0) return (this.#pending[this.#pendingHead] as LogEntry).seq;
    return undefined;
  }

  #append(entry: LogEntry): void {
    if (this.#next - this.#first === this.capacity) this.#evictOldest();
    const ordinal = this.#next++;
    this.#slots[ordinal % this.capacity] = entry;
    this.#texts[ordinal % this.capacity] = undefined;
    this.#levels[entry.level] = (this.#levels[entry.level] ?? 0) + 1;
    this.#components.set(entry.component, (this.#components.get(entry.component) ?? 0) + 1);
    if (this.#passes(this.#compiled, ordinal)) this.#view.push(ordinal);
    if (this.#refilter !== undefined && ordinal >= this.#refilter.end && this.#passes(this.#refilter.compiled, ordinal)) this.#refilter.tail.push(ordinal);
  }

  /** Does the held entry `ordinal` pass `compiled`? Its search text is built once, and only if a text query needs it. */
  #passes(compiled: CompiledFilter, ordinal: number): boolean {
    const slot = ordinal % this.capacity;
    const entry = this.#slots[slot] as LogEntry;
    if (!compiled.usesText) return compiled.matches(entry);
    let text = this.#texts[slot];
    if (text === undefined) {
      text = searchText(entry);
      this.#texts[slot] = text;
    }
    return compiled.matches(entry, text);
  }

  #evictOldest(): void {
    const slot = this.#first % this.capacity;
    const entry = this.#slots[slot] as LogEntry;
    this.#slots[slot] = undefined;
    this.#texts[slot] = undefined;
    this.#first++;
    this.#evicted++;
    this.#levels[entry.level]--;
    this.#components.set(entry.component, (this.#components.get(entry.component) ?? 1) - 1);
    if (this.#view[this.#viewHead] === this.#first - 1) this.#viewHead++;
  }

  // Compacts the view's array once its dead head outweighs the live part (amortized O(1)).
  #trimView(): void {
    if (this.#viewHead > 4096 && this.#viewHead * 2 > this.#view.length) {
      this.#view = this.#view.slice(this.#viewHead);
      this.#viewHead = 0;
    }
  }

  // While paused, at most `capacity` entries wait: more could not all be shown on resume anyway.
  #trimPending(): void {
    const excess = this.pending - this.capacity;
    if (excess > 0) {
      this.#pendingHead += excess;
      this.#evicted += excess;
    }
    if (this.#pendingHead > 4096 && this.#pendingHead * 2 > this.#pending.length) {
      this.#pending = this.#pending.slice(this.#pendingHead);
      this.#pendingHead = 0;
    }
  }

  // Ordinals keep growing across a reset, so that no two entries ever share a key. A filter change
  // under way takes effect at once: the entries are appended again through it.
  #resetRing(): void {
    if (this.#refilter !== undefined) {
      this.#compiled = this.#refilter.compiled;
      this.#refilter = undefined;
    }
    this.#slots.fill(undefined);
    this.#texts.fill(undefined);
    this.#first = this.#next;
    this.#view = [];
    this.#viewHead = 0;
    for (const level of LOG_LEVELS) this.#levels[level] = 0;
    for (const component of this.#components.keys()) this.#components.set(component, 0);
  }

  #rebuildView(): void {
    const view: number[] = [];
    for (let o = this.#first; o < this.#next; o++) {
      if (this.#passes(this.#compiled, o)) view.push(o);
    }
    this.#view = view;
    this.#viewHead = 0;
  }
}
