import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CANCELLED, LINK_DOWN, LINK_LOST, socketUrlFor, WebSocketBridge } from './ws-bridge.ts';

/** A stand-in for the browser's WebSocket: records frames, opens and closes when told. */
class FakeSocket {
  static readonly OPEN = 1;
  static readonly all: FakeSocket[] = [];
  readonly url: string;
  readyState = 0;
  readonly sent: string[] = [];
  onopen: (() => void) | null = null;
  onclose: (() => void) | null = null;
  onmessage: ((message: { data: unknown }) => void) | null = null;
  constructor(url: string) {
    this.url = url;
    FakeSocket.all.push(this);
  }
  send(frame: string) {
    this.sent.push(frame);
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  close() {
    this.readyState = 3;
    this.onclose?.();
  }
  answer(id: number, value: unknown) {
    this.onmessage?.({ data: JSON.stringify({ type: 'result', id, result: { ok: true, value } }) });
  }
}

const last = () => FakeSocket.all.at(-1) as FakeSocket;
const ids = (socket: FakeSocket) => socket.sent.map((frame) => (JSON.parse(frame) as { id: number }).id);

beforeEach(() => {
  FakeSocket.all.length = 0;
  vi.useFakeTimers();
  vi.stubGlobal('WebSocket', FakeSocket);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('WebSocketBridge', () => {
  it('holds calls made before the link opens and sends them once it does, in order', async () => {
    const bridge = new WebSocketBridge('ws://127.0.0.1:1/t/ws');
    const first = bridge.call('overview:get', {});
    const second = bridge.call('mesh:get', {});
    expect(last().sent).toEqual([]);
    last().open();
    expect(ids(last())).toEqual([1, 2]);
    last().answer(2, 'mesh');
    last().answer(1, 'overview');
    expect(await first).toEqual({ ok: true, value: 'overview' });
    expect(await second).toEqual({ ok: true, value: 'mesh' });
  });

  it('answers a call that was sent when the link drops, and never sends it again', async () => {
    const bridge = new WebSocketBridge('ws://127.0.0.1:1/t/ws');
    last().open();
    const sent = bridge.call('documents:query', { statement: "DELETE FROM c WHERE _id = 'a'" });
    last().close();
    expect(await sent).toEqual(LINK_LOST);
    expect(bridge.state).toBe('closed');
    const waiting = bridge.call('overview:get', {});
    vi.advanceTimersByTime(250);
    last().open();
    expect(ids(last())).toEqual([2]);
    last().answer(2, 'again');
    expect(await waiting).toEqual({ ok: true, value: 'again' });
  });

  it('refuses a call that may change the peer while the link is down, and never sends it later', async () => {
    const bridge = new WebSocketBridge('ws://127.0.0.1:1/t/ws');
    last().open();
    last().close();
    expect(await bridge.call('documents:query', { statement: "UPDATE c SET x = 1 WHERE _id = 'a'" })).toEqual(LINK_DOWN);
    expect(await bridge.call('subscriptions:register', { statement: 'SELECT * FROM c' })).toEqual(LINK_DOWN);
    expect(await bridge.call('eviction:run', { collection: 'c' })).toEqual(LINK_DOWN);
    const read = bridge.call('documents:query', { statement: '-- a note\n select * from c' });
    vi.advanceTimersByTime(250);
    last().open();
    // Only the SELECT goes out once the link is back.
    expect(last().sent.map((f) => (JSON.parse(f) as { channel: string; input: { statement?: string } }).input.statement)).toEqual([
      '-- a note\n select * from c',
    ]);
    last().answer(1, 'rows');
    expect(await read).toEqual({ ok: true, value: 'rows' });
  });

  it('counts the calls waiting for the link, and cancels them unsent', async () => {
    const bridge = new WebSocketBridge('ws://127.0.0.1:1/t/ws');
    const counts: number[] = [];
    bridge.onWaitingChange((n) => counts.push(n));
    const a = bridge.call('overview:get', {});
    const b = bridge.call('documents:query', { statement: 'EXPLAIN SELECT * FROM c' });
    expect(bridge.waiting).toBe(2);
    bridge.cancelWaiting();
    expect(await a).toEqual(CANCELLED);
    expect(await b).toEqual(CANCELLED);
    last().open();
    expect(last().sent).toEqual([]);
    expect(counts).toEqual([1, 2, 0, 0]);
  });

  it('reconnects with a growing delay and reports each state', () => {
    const bridge = new WebSocketBridge('ws://127.0.0.1:1/t/ws');
    const states: string[] = [];
    bridge.onStateChange((state) => states.push(state));
    last().open();
    last().close();
    vi.advanceTimersByTime(250);
    expect(FakeSocket.all).toHaveLength(2);
    last().close();
    vi.advanceTimersByTime(250);
    expect(FakeSocket.all).toHaveLength(2);
    vi.advanceTimersByTime(250);
    expect(FakeSocket.all).toHaveLength(3);
    expect(states).toEqual(['open', 'closed', 'connecting', 'closed', 'connecting']);
  });

  it('delivers events to their listeners until they stop listening', () => {
    const bridge = new WebSocketBridge('ws://127.0.0.1:1/t/ws');
    last().open();
    const seen: unknown[] = [];
    const stop = bridge.on('subscriptions:changed', (payload) => seen.push(payload));
    last().onmessage?.({ data: JSON.stringify({ type: 'event', event: 'subscriptions:changed', payload: {} }) });
    stop();
    last().onmessage?.({ data: JSON.stringify({ type: 'event', event: 'subscriptions:changed', payload: {} }) });
    last().onmessage?.({ data: 'not json' });
    expect(seen).toEqual([{}]);
  });
});

describe('socketUrlFor', () => {
  it('finds the socket beside the page, under the token', () => {
    expect(socketUrlFor('http://127.0.0.1:5123/abc/')).toBe('ws://127.0.0.1:5123/abc/ws');
    expect(socketUrlFor('http://127.0.0.1:5123/abc/index.html?x=1#/documents')).toBe('ws://127.0.0.1:5123/abc/ws');
  });
});
