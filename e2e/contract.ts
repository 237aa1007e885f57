/**
 * The inspector contract from the test itself, over the same WebSocket the page uses (with the
 * page's Origin, which the server requires). For setting up a scene quickly (hundreds of
 * documents) and for what a test must do at an exact moment; what the tests check goes through
 * the page.
 */
import WebSocket from 'ws';
import type { BridgeServerFrame, CallInput, CallName, CallOutput } from '../src/shared/inspector/contract.ts';
import type { CallResult } from '../src/shared/inspector/result.ts';
import type { InspectedPeer } from './processes.ts';

const CALL_TIMEOUT_MS = 60_000;

/** One contract session (a socket) to a peer's inspector. */
export class ContractClient {
  readonly #socket: WebSocket;
  readonly #opened: Promise<void>;
  readonly #pending = new Map<number, (result: CallResult<unknown>) => void>();
  #nextId = 1;

  constructor(peer: Pick<InspectedPeer, 'origin' | 'token'>) {
    const url = `${peer.origin.replace(/^http/, 'ws')}/${peer.token}/ws`;
    this.#socket = new WebSocket(url, { origin: peer.origin });
    this.#opened = new Promise((resolve, reject) => {
      this.#socket.once('open', () => resolve());
      this.#socket.once('error', reject);
    });
    this.#socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as BridgeServerFrame;
      if (frame.type !== 'result') return;
      this.#pending.get(frame.id)?.(frame.result);
      this.#pending.delete(frame.id);
    });
    this.#socket.on('close', () => {
      for (const resolve of this.#pending.values()) resolve({ ok: false, error: { code: 'internal/unexpected', message: 'the socket closed' } });
      this.#pending.clear();
    });
  }

  /** Calls `channel` and answers its output; an error value throws, with its code and message. */
  async call<C extends CallName>(channel: C, input: CallInput<C>): Promise<CallOutput<C>> {
    await this.#opened;
    const id = this.#nextId++;
    const result = await new Promise<CallResult<unknown>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${channel} got no answer within ${CALL_TIMEOUT_MS} ms`));
      }, CALL_TIMEOUT_MS);
      this.#pending.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.#socket.send(JSON.stringify({ type: 'call', id, channel, input }));
    });
    if (!result.ok) throw new Error(`${channel} failed: ${result.error.code}: ${result.error.message}`);
    return result.value as CallOutput<C>;
  }

  /** Runs one DQL statement; throws when it fails. */
  query(statement: string, args: Record<string, unknown> = {}): Promise<CallOutput<'documents:query'>> {
    return this.call('documents:query', { statement, args } as CallInput<'documents:query'>);
  }

  close(): Promise<void> {
    if (this.#socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.#socket.once('close', () => resolve());
      this.#socket.close();
    });
  }
}

/** Calls `fn` with a fresh session to `peer`, closed afterwards. */
export async function withContract<T>(peer: Pick<InspectedPeer, 'origin' | 'token'>, fn: (client: ContractClient) => Promise<T>): Promise<T> {
  const client = new ContractClient(peer);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}
