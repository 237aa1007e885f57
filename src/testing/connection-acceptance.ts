/**
 * The acceptance suite every replication `Connection` passes: the in-memory twin and the
 * WebSocket client/server pair run the same tests (`runConnectionAcceptanceTests(name, open)`),
 * so the twin can stand in for real sockets in fast tests of the layers above.
 *
 * `open` returns two connected, open ends on which `listen` has not been called yet. Every wait
 * is bounded, so a transport that loses a frame or a close fails rather than hangs.
 */
import { describe, expect, it } from 'vitest';
import type { Connection } from '../peer/replication/connection.ts';

export interface OpenedConnections {
  /** The side that dialed (`dialed` true). */
  readonly dialer: Connection;
  /** The side that accepted (`dialed` false). */
  readonly acceptor: Connection;
  cleanup(): Promise<void>;
}

/** How long any one wait may take before the test fails. */
const WAIT_MS = 5000;
/** How long to wait before asserting that something did not happen. */
const QUIET_MS = 100;
/** Per test: a few bounded waits, plus opening and cleaning up. */
const TEST_MS = 20_000;

const MiB = 1024 * 1024;

interface Closed {
  readonly code: number;
  readonly reason: string;
}

/** What one end received once `listen` was called on it. */
interface Received {
  readonly messages: string[];
  readonly closes: Closed[];
  /** Messages and closes interleaved, in order of delivery. */
  readonly events: ({ message: string } | { close: Closed })[];
}

function record(connection: Connection): Received {
  const received: Received = { messages: [], closes: [], events: [] };
  connection.listen({
    message(text) {
      received.messages.push(text);
      received.events.push({ message: text });
    },
    close(code, reason) {
      received.closes.push({ code, reason });
      received.events.push({ close: { code, reason } });
    },
  });
  return received;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves once `condition` holds; rejects with `what` after WAIT_MS. */
async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`);
    await sleep(1);
  }
}

/** Describes a frame briefly (1 MiB frames make unreadable failure messages). */
function brief(frames: readonly string[]): string[] {
  return frames.map((f) => (f.length <= 40 ? f : `${f.slice(0, 20)}…(${f.length} chars)…${f.slice(-10)}`));
}

function expectFrames(actual: readonly string[], expected: readonly string[]): void {
  expect(brief(actual)).toEqual(brief(expected));
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    if (actual[i] !== expected[i])
      throw new Error(`frame ${i} differs: got ${brief([actual[i] ?? '<missing>'])[0]}, expected ${brief([expected[i] ?? ''])[0]}`);
  }
}

/** Frames that exercise size and encoding: ASCII, multi-byte UTF-8, astral characters, 1 MiB. */
function sampleFrames(tag: string): string[] {
  const frames: string[] = [];
  for (let i = 0; i < 50; i++) frames.push(JSON.stringify({ tag, i }));
  frames.push(`${tag}: héllo wörld — ünïcödé`);
  frames.push(`${tag}: 日本語のテキスト, 한국어, العربية, עברית`);
  frames.push(`${tag}: emoji 🎉👩‍👩‍👧‍👦🏳️‍🌈 and astral 𝕊𝕪𝕟𝕔`);
  frames.push(`${tag}: combining e\u0301 and zero-width \u200d and NUL \u0000 and BOM \ufeff`);
  frames.push(`${tag}:` + 'x'.repeat(MiB));
  // 1 MiB of characters, 3 MiB of UTF-8: multi-byte sequences straddle every fragment boundary.
  frames.push(`${tag}:` + '€'.repeat(MiB));
  frames.push(`${tag}:` + '😀'.repeat(MiB / 4));
  for (let i = 50; i < 100; i++) frames.push(JSON.stringify({ tag, i }));
  return frames;
}

export function runConnectionAcceptanceTests(name: string, open: () => Promise<OpenedConnections>): void {
  describe(`${name} connection`, () => {
    async function withConnections(fn: (c: OpenedConnections) => Promise<void>): Promise<void> {
      const opened = await open();
      try {
        await fn(opened);
      } finally {
        await opened.cleanup();
      }
    }

    it(
      'delivers text frames in order, both ways at once, including large (1 MiB) and non-ASCII frames',
      () =>
        withConnections(async ({ dialer, acceptor }) => {
          const atDialer = record(dialer);
          const atAcceptor = record(acceptor);
          const toAcceptor = sampleFrames('from dialer');
          const toDialer = sampleFrames('from acceptor');
          for (let i = 0; i < toAcceptor.length; i++) {
            dialer.send(toAcceptor[i] ?? '');
            acceptor.send(toDialer[i] ?? '');
          }
          await until('every frame at the acceptor', () => atAcceptor.messages.length >= toAcceptor.length);
          await until('every frame at the dialer', () => atDialer.messages.length >= toDialer.length);
          await sleep(QUIET_MS);
          expectFrames(atAcceptor.messages, toAcceptor);
          expectFrames(atDialer.messages, toDialer);
          expect(atAcceptor.closes).toEqual([]);
          expect(atDialer.closes).toEqual([]);
          expect(dialer.isOpen).toBe(true);
          expect(acceptor.isOpen).toBe(true);
        }),
      TEST_MS,
    );

    it(
      'delivers an empty frame as an empty string',
      () =>
        withConnections(async ({ dialer, acceptor }) => {
          const atAcceptor = record(acceptor);
          dialer.send('');
          dialer.send('after the empty one');
          await until('both frames at the acceptor', () => atAcceptor.messages.length >= 2);
          expect(atAcceptor.messages).toEqual(['', 'after the empty one']);
        }),
      TEST_MS,
    );

    it(
      'holds the frames that arrive before listen is called and delivers them in order once it is',
      () =>
        withConnections(async ({ dialer, acceptor }) => {
          const atDialer = record(dialer);
          const early = ['first', 'second — ü', 'third 🎉', 'x'.repeat(MiB)];
          for (const frame of early) dialer.send(frame);
          // An end that does not listen yet can still send; the answer to it is held too.
          acceptor.send('ping from an acceptor that does not listen yet');
          await until('the ping at the dialer', () => atDialer.messages.length >= 1);
          dialer.send('pong');
          // Give every frame time to arrive before listening (nothing can observe them sooner).
          await sleep(QUIET_MS);
          const atAcceptor = record(acceptor);
          expectFrames(atAcceptor.messages, [...early, 'pong']);
          dialer.send('after listen');
          await until('the frame sent after listen', () => atAcceptor.messages.length >= early.length + 2);
          expectFrames(atAcceptor.messages, [...early, 'pong', 'after listen']);
        }),
      TEST_MS,
    );

    it(
      'holds a close that arrives before listen is called and delivers it after the frames that preceded it',
      () =>
        withConnections(async ({ dialer, acceptor }) => {
          const atDialer = record(dialer);
          dialer.send('one');
          dialer.send('two');
          dialer.close(4401, 'closed before the acceptor listened');
          await until('the close at the dialer', () => atDialer.closes.length >= 1);
          await sleep(QUIET_MS);
          const atAcceptor = record(acceptor);
          expect(atAcceptor.events).toEqual([{ message: 'one' }, { message: 'two' }, { close: { code: 4401, reason: 'closed before the acceptor listened' } }]);
        }),
      TEST_MS,
    );

    for (const closer of ['dialer', 'acceptor'] as const) {
      it(
        `delivers a close by the ${closer}, with its code and reason, to the other side and to the ${closer} itself`,
        () =>
          withConnections(async (opened) => {
            const closing = opened[closer];
            const other = closer === 'dialer' ? opened.acceptor : opened.dialer;
            const atClosing = record(closing);
            const atOther = record(other);
            const reason = `the ${closer} is done — ünïcode 🎉`;
            closing.close(4400, reason);
            await until('the close at the other side', () => atOther.closes.length >= 1);
            await until(`the close at the ${closer}`, () => atClosing.closes.length >= 1);
            await sleep(QUIET_MS);
            expect(atOther.closes).toEqual([{ code: 4400, reason }]);
            expect(atClosing.closes).toEqual([{ code: 4400, reason }]);
            expect(atOther.messages).toEqual([]);
            expect(atClosing.messages).toEqual([]);
          }),
        TEST_MS,
      );
    }

    it(
      'delivers the frames sent before a close ahead of the close',
      () =>
        withConnections(async ({ dialer, acceptor }) => {
          const atAcceptor = record(acceptor);
          const atDialer = record(dialer);
          const frames = ['a', 'b', 'x'.repeat(MiB), 'c'];
          for (const frame of frames) dialer.send(frame);
          dialer.close(4402, 'after four frames');
          await until('the close at the acceptor', () => atAcceptor.closes.length >= 1);
          await until('the close at the dialer', () => atDialer.closes.length >= 1);
          expectFrames(atAcceptor.messages, frames);
          expect(atAcceptor.events.at(-1)).toEqual({ close: { code: 4402, reason: 'after four frames' } });
        }),
      TEST_MS,
    );

    it(
      'after close, isOpen is false on both ends and send is ignored: no throw, nothing delivered',
      () =>
        withConnections(async ({ dialer, acceptor }) => {
          const atDialer = record(dialer);
          const atAcceptor = record(acceptor);
          expect(dialer.isOpen).toBe(true);
          expect(acceptor.isOpen).toBe(true);
          dialer.close(4403, 'closing');
          // Closing: no longer open, and a send is ignored at once.
          expect(dialer.isOpen).toBe(false);
          expect(() => dialer.send('sent by the dialer while closing')).not.toThrow();
          await until('the close at the acceptor', () => atAcceptor.closes.length >= 1);
          await until('the close at the dialer', () => atDialer.closes.length >= 1);
          expect(dialer.isOpen).toBe(false);
          expect(acceptor.isOpen).toBe(false);
          expect(() => dialer.send('sent by the dialer after close')).not.toThrow();
          expect(() => acceptor.send('sent by the acceptor after close')).not.toThrow();
          await sleep(QUIET_MS);
          expect(atAcceptor.messages).toEqual([]);
          expect(atDialer.messages).toEqual([]);
          expect(atAcceptor.closes).toHaveLength(1);
          expect(atDialer.closes).toHaveLength(1);
          expect(dialer.isOpen).toBe(false);
          expect(acceptor.isOpen).toBe(false);
        }),
      TEST_MS,
    );

    it(
      'closing twice is harmless: no throw, one close on each side, with the first code and reason',
      () =>
        withConnections(async ({ dialer, acceptor }) => {
          const atDialer = record(dialer);
          const atAcceptor = record(acceptor);
          dialer.close(4404, 'first close');
          expect(() => dialer.close(4405, 'second close')).not.toThrow();
          await until('the close at the acceptor', () => atAcceptor.closes.length >= 1);
          await until('the close at the dialer', () => atDialer.closes.length >= 1);
          expect(() => dialer.close(4406, 'third close, after the close arrived')).not.toThrow();
          expect(() => acceptor.close(4407, 'the other side closes a closed connection')).not.toThrow();
          await sleep(QUIET_MS);
          expect(atAcceptor.closes).toEqual([{ code: 4404, reason: 'first close' }]);
          expect(atDialer.closes).toEqual([{ code: 4404, reason: 'first close' }]);
        }),
      TEST_MS,
    );

    it(
      'closing from both ends at once delivers exactly one close on each side',
      () =>
        withConnections(async ({ dialer, acceptor }) => {
          const atDialer = record(dialer);
          const atAcceptor = record(acceptor);
          dialer.close(4408, 'the dialer closes');
          acceptor.close(4409, 'the acceptor closes');
          await until('the close at the acceptor', () => atAcceptor.closes.length >= 1);
          await until('the close at the dialer', () => atDialer.closes.length >= 1);
          await sleep(QUIET_MS);
          const either = [
            { code: 4408, reason: 'the dialer closes' },
            { code: 4409, reason: 'the acceptor closes' },
          ];
          expect(atDialer.closes).toHaveLength(1);
          expect(atAcceptor.closes).toHaveLength(1);
          expect(either).toContainEqual(atDialer.closes[0]);
          expect(either).toContainEqual(atAcceptor.closes[0]);
          expect(dialer.isOpen).toBe(false);
          expect(acceptor.isOpen).toBe(false);
        }),
      TEST_MS,
    );

    it(
      'dialed is true on the dialer and false on the acceptor; ids are unique',
      async () => {
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          await withConnections(async ({ dialer, acceptor }) => {
            expect(dialer.dialed).toBe(true);
            expect(acceptor.dialed).toBe(false);
            for (const c of [dialer, acceptor]) {
              expect(c.id).toMatch(new RegExp(`^${c.type}#\\d+$`));
              expect(c.remoteAddress).not.toBe('');
              ids.push(c.id);
            }
          });
        }
        expect(new Set(ids).size).toBe(ids.length);
      },
      TEST_MS * 3,
    );

    it(
      'refuses a second listener',
      () =>
        withConnections(async ({ dialer }) => {
          record(dialer);
          expect(() => record(dialer)).toThrow();
        }),
      TEST_MS,
    );
  });
}
