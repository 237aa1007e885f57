import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../shared/json.ts';
import { seededRandom } from '../../testing/seeded-random.ts';
import { DocumentEditor } from './document-editor.ts';
import type { DocumentMeta, Stamp } from './document-meta.ts';
import { HybridClock } from './hlc.ts';
import { mergeDocumentStates as merge, type DocumentState } from './merge.ts';

/** A replica of one document: edits stamped by its own hybrid clock, which observes what it merges. */
class Replica {
  state: DocumentState | undefined;
  readonly writer: string;
  readonly #clock: HybridClock;

  constructor(writer: string, now: () => number) {
    this.writer = writer;
    this.#clock = new HybridClock(now);
  }

  #stamp(): Stamp {
    return [this.#clock.tick(), this.writer];
  }

  insert(value: JsonObject): this {
    const stamp = this.#stamp();
    const d = this.state?.meta.d;
    this.state = { value: { _id: 'doc', ...value }, meta: d === undefined ? { c: stamp } : { c: stamp, d } };
    return this;
  }

  edit(fn: (e: DocumentEditor) => void): this {
    if (this.state?.value == null) return this;
    const e = new DocumentEditor(structuredClone(this.state.value), this.state.meta, this.#stamp());
    fn(e);
    this.state = { value: e.value, meta: e.meta() };
    return this;
  }

  delete(): this {
    if (this.state?.value == null) return this;
    this.state = { value: null, meta: { c: this.state.meta.c, d: this.#stamp() } };
    return this;
  }

  receive(other: Replica): this {
    if (other.state === undefined) return this;
    for (const s of stampsOf(other.state.meta)) this.#clock.observe(s[0]);
    this.state = this.state === undefined ? merge(other.state, other.state) : merge(this.state, other.state);
    return this;
  }
}

function stampsOf(meta: DocumentMeta): Stamp[] {
  return [meta.c, ...(meta.d ? [meta.d] : []), ...Object.values(meta.f ?? {}), ...Object.values(meta.r ?? {}), ...Object.values(meta.n ?? {}).map((n) => n.s)];
}

function setUp(writers = ['A', 'B', 'C']) {
  let now = Date.UTC(2026, 10, 21);
  const tick = () => (now += 1);
  return writers.map((w) => new Replica(w, tick));
}

describe('merging concurrent edits of a document', () => {
  it('keeps concurrent edits of different fields', () => {
    const [a, b] = setUp() as [Replica, Replica];
    a.insert({ name: 'x', qty: 1 });
    b.receive(a);
    a.edit((e) => e.set(['name'], 'from A'));
    b.edit((e) => e.set(['qty'], 7));
    a.receive(b);
    b.receive(a);
    expect(a.state?.value).toEqual({ _id: 'doc', name: 'from A', qty: 7 });
    expect(b.state).toEqual(a.state);
  });

  it('lets the later writer win the same field, whichever side merges', () => {
    const [a, b] = setUp() as [Replica, Replica];
    a.insert({ status: 'new' });
    b.receive(a);
    a.edit((e) => e.set(['status'], 'packed'));
    b.edit((e) => e.set(['status'], 'shipped'));
    expect(merge(a.state!, b.state!).value?.status).toBe('shipped');
    expect(merge(b.state!, a.state!).value?.status).toBe('shipped');
  });

  it('adds up concurrent increments of a counter from different peers', () => {
    const [a, b, c] = setUp() as [Replica, Replica, Replica];
    a.insert({}).edit((e) => e.increment(['ownedCars'], 1));
    b.receive(a);
    c.receive(a);
    a.edit((e) => e.increment(['ownedCars'], 2));
    b.edit((e) => e.increment(['ownedCars'], 3));
    c.edit((e) => e.increment(['ownedCars'], -1));
    a.receive(b).receive(c);
    b.receive(a);
    expect(a.state?.value?.ownedCars).toBe(5);
    expect(b.state?.value?.ownedCars).toBe(5);
  });

  it('brings a deleted document back with only the fields an edit wrote after the deletion', () => {
    const [a, b] = setUp() as [Replica, Replica];
    a.insert({ old: 1, keep: 2 });
    b.receive(a);
    a.delete();
    b.edit((e) => e.set(['late'], 'edit'));
    a.receive(b);
    b.receive(a);
    expect(a.state?.value).toEqual({ _id: 'doc', late: 'edit' });
    expect(b.state).toEqual(a.state);
  });

  it('lets a deletion win over older edits it did not see, until a later INSERT starts the document afresh', () => {
    const [a, b] = setUp() as [Replica, Replica];
    a.insert({ old: 1 });
    b.receive(a);
    b.edit((e) => e.set(['edited'], true));
    a.delete();
    a.receive(b);
    expect(a.state?.value).toBeNull();
    a.insert({ fresh: 1 });
    b.receive(a);
    expect(b.state?.value).toEqual({ _id: 'doc', fresh: 1 });
  });

  it('removes a field unset after it was set elsewhere, and keeps one set after the removal', () => {
    const [a, b] = setUp() as [Replica, Replica];
    a.insert({ x: 1, y: 1 });
    b.receive(a);
    b.edit((e) => e.set(['x'], 2));
    a.edit((e) => e.unset(['x']));
    a.edit((e) => e.unset(['y']));
    b.edit((e) => e.set(['y'], 3));
    a.receive(b);
    expect(a.state?.value).toEqual({ _id: 'doc', y: 3 });
  });

  it('replaces an object as a whole when it was assigned after a concurrent nested edit', () => {
    const [a, b] = setUp() as [Replica, Replica];
    a.insert({ addr: { city: 'Oslo', zip: '0150' } });
    b.receive(a);
    b.edit((e) => e.set(['addr', 'street'], 'Main'));
    a.edit((e) => e.set(['addr'], { city: 'Bergen' }));
    a.receive(b);
    expect(a.state?.value?.addr).toEqual({ city: 'Bergen' });
    b.edit((e) => e.set(['addr', 'zip'], '5003'));
    a.receive(b);
    expect(a.state?.value?.addr).toEqual({ city: 'Bergen', zip: '5003' });
  });

  it('gives the same state back when a state is merged with itself or with what it already contains', () => {
    const [a, b] = setUp() as [Replica, Replica];
    a.insert({ n: 1, o: { p: [1, 2] } }).edit((e) => e.increment(['k'], 4));
    b.receive(a).edit((e) => e.set(['o', 'q'], null));
    a.receive(b);
    const once = a.state!;
    expect(merge(once, once)).toEqual(once);
    expect(merge(once, b.state!)).toEqual(once);
  });
});

describe('merge under random concurrent edits', () => {
  const PATHS: (string | number)[][] = [['a'], ['b'], ['o', 'x'], ['o', 'y'], ['o'], ['o', 'deep', 'z'], ['list']];

  function randomEdit(r: () => number, replica: Replica): void {
    const k = r();
    const path = PATHS[Math.floor(r() * PATHS.length)] as (string | number)[];
    if (k < 0.05) return void replica.delete();
    if (k < 0.1 || replica.state?.value == null) return void replica.insert({ a: Math.floor(r() * 5) });
    if (k < 0.5) {
      const values = [1, 'two', true, null, [1, 2], { x: 3 }, {}];
      return void replica.edit((e) => e.set(path, structuredClone(values[Math.floor(r() * values.length)]) as never));
    }
    if (k < 0.7) return void replica.edit((e) => e.unset(path));
    replica.edit((e) => e.increment(['c'], Math.floor(r() * 7) - 3));
  }

  it.each(Array.from({ length: 100 }, (_, i) => i + 1))('converges on three replicas whatever the order of merges (seed %i)', (seed) => {
    const r = seededRandom(seed * 104729);
    const replicas = setUp();
    replicas[0]?.insert({ a: 0 });
    for (let step = 0; step < 60; step++) {
      const i = Math.floor(r() * 3);
      if (r() < 0.6) randomEdit(r, replicas[i] as Replica);
      else (replicas[i] as Replica).receive(replicas[Math.floor(r() * 3)] as Replica);
    }
    // Everyone hears from everyone, twice over.
    for (let round = 0; round < 2; round++) for (const x of replicas) for (const y of replicas) x.receive(y);
    const [x, y, z] = replicas as [Replica, Replica, Replica];
    expect(y.state).toEqual(x.state);
    expect(z.state).toEqual(x.state);
  });

  it.each(Array.from({ length: 300 }, (_, i) => i + 1))('is commutative, associative and idempotent on random states (seed %i)', (seed) => {
    const r = seededRandom(seed * 7919);
    const replicas = setUp();
    replicas.forEach((rep) => rep.insert({ a: 1 }));
    for (let step = 0; step < 40; step++) randomEdit(r, replicas[Math.floor(r() * 3)] as Replica);
    const [a, b, c] = replicas.map((x) => x.state as DocumentState) as [DocumentState, DocumentState, DocumentState];
    expect(merge(a, b)).toEqual(merge(b, a));
    expect(merge(a, merge(b, c))).toEqual(merge(merge(a, b), c));
    const ab = merge(a, b);
    expect(merge(ab, ab)).toEqual(ab);
    expect(merge(ab, a)).toEqual(ab);
  });
});
