/**
 * For a benchmark's child process: when this process's WebSockets (`ws`, whoever made them) had
 * written the frames that name one document. A node process of the `nodes` suite uses it to say
 * when it had sent a fan-out write to every one of its sessions, apart from how long the peers
 * then take to merge it (docs/benchmarks.md, "200 and 1,000 small peers across two nodes").
 *
 * It wraps `WebSocket.prototype.send` of this process: each frame is passed on unchanged, and
 * only while a document is watched is the frame searched for its `_id`.
 */
import { WebSocket } from 'ws';
import { wallNow } from './nodes-ipc.ts';

/** How many frames naming the watched document were written, and when the last one was (shared clock, ms). */
export interface SentFrames {
  readonly count: number;
  readonly last: number;
}

let watched: Buffer | undefined;
let count = 0;
let last = 0;

function names(data: unknown, needle: Buffer): boolean {
  if (typeof data === 'string') return data.includes(needle.toString('utf8'));
  return Buffer.isBuffer(data) && data.includes(needle);
}

const proto = WebSocket.prototype as unknown as { send: (...args: unknown[]) => void };
const send = proto.send;
proto.send = function (this: unknown, ...args: unknown[]) {
  send.apply(this, args);
  if (watched !== undefined && names(args[0], watched)) {
    count++;
    last = wallNow();
  }
};

/** Starts watching for frames that name `id` (as JSON, e.g. `"fan-000003"`); forgets the last one watched. */
export function watchFrames(id: string): void {
  watched = Buffer.from(JSON.stringify(id), 'utf8');
  count = 0;
  last = 0;
}

/** What was written since `watchFrames`, and stops watching. */
export function framesSent(): SentFrames {
  watched = undefined;
  return { count, last };
}
