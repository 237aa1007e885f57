/**
 * Which inspector calls may change the peer. One definition for both sides: the page's WebSocket
 * bridge refuses such a call while its link is down (never sent later without the user seeing
 * it), and a server in read-only mode refuses it (`inspector/read-only`). Pure.
 */
import { tokenize, TokenKind } from '../dql/lexer.ts';
import type { CallName } from './contract.ts';

/** Channels that only read the peer. */
export const READ_CALLS: ReadonlySet<CallName> = new Set<CallName>([
  'overview:get',
  'documents:rows',
  'documents:window',
  'documents:metadata',
  'documents:trace',
  'subscriptions:list',
  'permissions:list',
  'permissions:check',
  'transactions:list',
  'transactions:slot',
  'mesh:get',
  'logs:recent',
  'eviction:get',
  'eviction:dry-run',
  'prefs:get',
]);

/**
 * Is the statement one that only reads: its first word (comments and white space skipped, by the
 * DQL lexer) `SELECT`, or `EXPLAIN`, which plans a statement without running it?
 */
export function isReadStatement(statement: string): boolean {
  for (const token of tokenize(statement, { lenient: true })) {
    if (token.kind !== TokenKind.NAME) return false;
    const word = token.value.toUpperCase();
    return word === 'SELECT' || word === 'EXPLAIN';
  }
  return false;
}

/** May the call change the peer? Every channel but the reads, and a statement that is not a SELECT or EXPLAIN. */
export function mayChangePeer(channel: CallName, input: unknown): boolean {
  if (READ_CALLS.has(channel)) return false;
  if (channel !== 'documents:query') return true;
  const statement = (input as { statement?: unknown } | undefined)?.statement;
  return typeof statement !== 'string' || !isReadStatement(statement);
}
