/**
 * The control protocol between a test (or a benchmark) and a peer agent (`agent.ts`) running in
 * a network namespace: one JSON object per line, commands on the agent's stdin, replies and the
 * one `ready` line on its stdout. Both sides import this file, so a command and its reply are
 * typed once. Replies carry the command's `id`; the agent answers every command, in any order.
 */
import type { LogEntry, LogLevel } from '../../shared/log.ts';

/** How an agent's peer is made; passed once, as the agent's only argument (JSON). */
export interface AgentConfig {
  /** A short name for messages (`a`, `b`, …). */
  readonly name: string;
  /** An absolute path: the peer's store (and its cached certificate) lives there. */
  readonly persistenceDirectory: string;
  readonly appID: string;
  readonly playgroundToken: string;
  /** The Big Peer this peer logs in to (`http://10.x.y.1:port`). */
  readonly bigPeerURL: string;
  /** Dial the Big Peer (`sync.bigPeer`). */
  readonly bigPeer: boolean;
  /** LAN discovery on this namespace's address, with a service type unique to the run; false: off. */
  readonly lan: { readonly interface: string; readonly serviceType: string } | false;
  /** Addresses to dial besides the Big Peer (`sync.connect`). */
  readonly connect?: readonly string[];
  /** Statements registered as sync subscriptions before sync starts. */
  readonly subscriptions: readonly string[];
  /** The log hub's minimum level (default INFO). */
  readonly logLevel?: LogLevel;
  /** Reconnection backoff (`sync.reconnect`). */
  readonly reconnect?: { readonly minDelayMs?: number; readonly maxDelayMs?: number };
}

/** A live replication session, as the agent reports it. */
export interface AgentSession {
  readonly remote: string;
  readonly role: 'big-peer' | 'small-peer';
  readonly connection: string;
  readonly connectionType: string;
  readonly remoteAddress: string;
}

/** A peer seen on the LAN, as `sync.lanPeers` has it. */
export interface AgentLanPeer {
  readonly name: string;
  readonly peerKey: string | undefined;
  readonly url: string;
  readonly compatible: boolean;
  readonly present: boolean;
  /** As the Mesh snapshot says it: its address failed enough dials in a row (since when, how many). */
  readonly unreachable?: { readonly since: number; readonly attempts: number } | undefined;
}

/** Epoch milliseconds with a fraction (`performance.timeOrigin + performance.now()`). */
export type EpochMs = number;

/** Every command: its parameters and the result of its reply. */
export interface AgentCalls {
  /** `startSync()`; resolves once sync runs. */
  start: { params: Record<string, never>; result: { peerKey: string; lanListenUrl: string | undefined } };
  /** `sync.store.execute(dql, args)`; `startedAt` is just before the call. */
  execute: { params: { dql: string; args?: Record<string, unknown> }; result: { items: unknown[]; startedAt: EpochMs; finishedAt: EpochMs } };
  /** Inserts `docs` into `collection`, `batch` per statement, one statement after the other. */
  insertMany: { params: { collection: string; docs: readonly Record<string, unknown>[]; batch: number }; result: { startedAt: EpochMs; finishedAt: EpochMs } };
  /** Waits until `dql` returns exactly `count` rows, re-run after each commit; fails after `timeoutMs` with the last rows. */
  waitRows: { params: { dql: string; args?: Record<string, unknown>; count: number; timeoutMs: number }; result: { items: unknown[]; at: EpochMs } };
  /**
   * Starts counting the documents of `collection`: those it holds now, and every one a commit
   * puts from now on (by id). Replies once counting, so that a write made after the reply is
   * counted; `waitCount` then waits on it. Cheaper than re-running a query after each commit.
   */
  watchCount: { params: { collection: string }; result: { watch: number; held: number } };
  /** Waits until the watch has counted `count` documents; `at` is when the commit that reached it was seen. Ends the watch. */
  waitCount: { params: { watch: number; count: number; timeoutMs: number }; result: { count: number; at: EpochMs } };
  sessions: { params: Record<string, never>; result: { sessions: AgentSession[] } };
  lanPeers: { params: Record<string, never>; result: { lanPeers: AgentLanPeer[] } };
  /** The log entries with `seq > since` (the agent keeps the last MAX_KEPT_LOGS). */
  logs: { params: { since: number }; result: { entries: LogEntry[]; dropped: number } };
  /** `stopSync()` and `close()`; the agent exits after replying. */
  stop: { params: Record<string, never>; result: Record<string, never> };
}

export type AgentCommandType = keyof AgentCalls;

export const AGENT_COMMAND_TYPES: readonly AgentCommandType[] = [
  'start',
  'execute',
  'insertMany',
  'waitRows',
  'watchCount',
  'waitCount',
  'sessions',
  'lanPeers',
  'logs',
  'stop',
];

export type AgentCommand = { [K in AgentCommandType]: { readonly id: number; readonly type: K; readonly params: AgentCalls[K]['params'] } }[AgentCommandType];

export type AgentReply =
  | { readonly type: 'reply'; readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly type: 'reply'; readonly id: number; readonly ok: false; readonly error: string }
  /** The first line: the store is open and the peer key known. */
  | { readonly type: 'ready'; readonly pid: number; readonly peerKey: string }
  /** The agent could not start; it exits next. */
  | { readonly type: 'fatal'; readonly error: string };

/** How many log entries an agent keeps for `logs`. */
export const MAX_KEPT_LOGS = 50_000;

/** Epoch milliseconds with sub-millisecond precision, comparable between processes of one host. */
export function epochNow(): EpochMs {
  return performance.timeOrigin + performance.now();
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A command line as the agent reads it; throws with what is wrong. Parameters are checked by each handler. */
export function parseCommand(line: string): AgentCommand {
  const value: unknown = JSON.parse(line);
  if (!isObject(value)) throw new Error('a command is a JSON object');
  if (typeof value.id !== 'number' || !Number.isInteger(value.id)) throw new Error('a command has an integer id');
  if (!AGENT_COMMAND_TYPES.includes(value.type as AgentCommandType)) throw new Error(`unknown command type ${JSON.stringify(value.type)}`);
  if (!isObject(value.params)) throw new Error('a command has a params object');
  return value as unknown as AgentCommand;
}

/** A reply line as the driver reads it; throws with what is wrong. */
export function parseReply(line: string): AgentReply {
  const value: unknown = JSON.parse(line);
  if (!isObject(value)) throw new Error('a reply is a JSON object');
  if (value.type === 'reply' && typeof value.id === 'number' && typeof value.ok === 'boolean') return value as unknown as AgentReply;
  if (value.type === 'ready' && typeof value.peerKey === 'string' && typeof value.pid === 'number') return value as unknown as AgentReply;
  if (value.type === 'fatal' && typeof value.error === 'string') return value as unknown as AgentReply;
  throw new Error(`not a reply: ${line.slice(0, 200)}`);
}

/** The agent's configuration from its argument; throws with what is wrong. */
export function parseConfig(text: string | undefined): AgentConfig {
  if (text === undefined) throw new Error('usage: agent.ts <json config>');
  const value: unknown = JSON.parse(text);
  if (!isObject(value)) throw new Error('the config is a JSON object');
  for (const key of ['name', 'persistenceDirectory', 'appID', 'playgroundToken', 'bigPeerURL'] as const) {
    if (typeof value[key] !== 'string' || value[key] === '') throw new Error(`config.${key} must be a non-empty string`);
  }
  if (!(value.persistenceDirectory as string).startsWith('/')) throw new Error('config.persistenceDirectory must be an absolute path');
  if (typeof value.bigPeer !== 'boolean') throw new Error('config.bigPeer must be a boolean');
  const lan = value.lan;
  if (lan !== false && !(isObject(lan) && typeof lan.interface === 'string' && typeof lan.serviceType === 'string')) {
    throw new Error('config.lan must be false or { interface, serviceType }');
  }
  if (!Array.isArray(value.subscriptions) || !value.subscriptions.every((s) => typeof s === 'string'))
    throw new Error('config.subscriptions must be an array of strings');
  return value as unknown as AgentConfig;
}
