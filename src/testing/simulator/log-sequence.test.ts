/**
 * The log-sequence checker on hand-made entries: what it accepts (the spec's sequences, as the
 * existing log-sequence test shows them) and each thing it reports.
 */
import { describe, expect, it } from 'vitest';
import { LOG_EVENTS, type LogEntry, type LogLevel } from '../../shared/log.ts';
import { LogSequenceChecker } from './log-sequence.ts';

let seq = 0;
function entry(event: string, fields: Record<string, string | number | boolean> = {}, component = 'replication', level: LogLevel = 'DEBUG'): LogEntry {
  return { seq: ++seq, level, timestamp: '2026-11-21T12:00:00.000Z', component, event, fields, message: `${event} ${JSON.stringify(fields)}` };
}
const opened = (lastTxn: number, key = 'pkA'): LogEntry => entry(LOG_EVENTS.storeOpened, { path: 'p', peer_key: key, last_txn_id: lastTxn }, 'store');
const commit = (txn: number): LogEntry[] => [
  entry(LOG_EVENTS.writeTxnCommitted, { txn_id: txn, originator: 'User' }, 'txn'),
  entry(LOG_EVENTS.databaseChangeNotified, { transaction: txn }, 'txn'),
];
const printed = (...remotes: string[]): LogEntry[] =>
  ['local', ...remotes].flatMap((peer) => [
    entry(LOG_EVENTS.subscriptionsPrinted, { peer, subscriptions: '{}' }),
    entry(LOG_EVENTS.permissionsPrinted, { peer, permissions: '{}' }),
  ]);
const session = (remote: string, conn: string, old = ''): LogEntry[] => [
  entry(LOG_EVENTS.phyStarted, { remote }),
  entry(LOG_EVENTS.connectionElected, { remote, new_conn: conn, old_conn: old }),
];

function check(entries: LogEntry[]): string[] {
  const problems: string[] = [];
  const checker = new LogSequenceChecker('p', (problem) => problems.push(problem));
  for (const e of entries) checker.feed(e);
  return problems;
}

describe('the log-sequence checker', () => {
  it('accepts a write and its update to the one remote, as spec 3.5 orders them', () => {
    expect(
      check([
        opened(4),
        ...session('pkB', 'Memory#1'),
        ...commit(5),
        ...printed('pkB'),
        entry(LOG_EVENTS.updateCreating, { sending_update_path: 'pkA/pkB/sending_update' }),
        entry(LOG_EVENTS.updateCreated, { since_index: 5, new_update_created: true, num_docs: 1, elapsed: '0.100ms' }),
        entry(LOG_EVENTS.updateDelivered),
        entry(LOG_EVENTS.noMessageToSend),
      ]),
    ).toEqual([]);
  });

  it('reports txn_ids that skip, a commit not followed by its notification, and a restart that lost a commit', () => {
    expect(check([opened(0), ...commit(2)])).toEqual([expect.stringContaining('txn_id 2 after 0')]);
    expect(check([opened(0), commit(1)[0] as LogEntry, entry(LOG_EVENTS.phyStarted, { remote: 'x' })])).toEqual([
      expect.stringContaining('Notifying a database change; transaction = 1'),
    ]);
    expect(check([opened(0), ...commit(1), opened(0)])).toEqual([expect.stringContaining('reopened at txn_id 0, but the last commit logged was 1')]);
    expect(check([opened(0), ...commit(1), opened(0, 'another key after a wipe')])).toEqual([]);
  });

  it('reports a print block that misses a remote with a session, or is interrupted', () => {
    expect(check([opened(0), ...session('pkB', 'Memory#1'), ...commit(1), ...printed()])).toEqual([]);
    const missing = check([
      opened(0),
      ...session('pkB', 'Memory#1'),
      ...commit(1),
      ...printed(),
      entry(LOG_EVENTS.updateCreating, { sending_update_path: 'pkA/pkB/sending_update' }),
    ]);
    expect(missing).toEqual([expect.stringContaining('the subscriptions of a remote not yet printed (pkB)')]);
  });

  it('reports an election without phy started, a wrong old_conn, a since_index that is not the last txn_id, and ERROR entries', () => {
    expect(check([opened(0), entry(LOG_EVENTS.connectionElected, { remote: 'pkB', new_conn: 'M#1', old_conn: '' })])).toEqual([
      expect.stringContaining('without "phy started"'),
    ]);
    expect(check([opened(0), ...session('pkB', 'M#1'), ...session('pkB', 'M#2')])).toEqual([
      expect.stringContaining('old_conn none, but the connection elected before was M#1'),
    ]);
    const since = check([
      opened(3),
      ...session('pkB', 'M#1'),
      entry(LOG_EVENTS.updateCreating, { sending_update_path: 'pkA/pkB/sending_update' }),
      entry(LOG_EVENTS.updateCreated, { since_index: 2, new_update_created: false, num_docs: 0 }),
    ]);
    expect(since).toEqual([expect.stringContaining('since_index 2 is not the last txn_id')]);
    expect(check([opened(0), entry('replication.failed', {}, 'replication', 'ERROR')])).toEqual([expect.stringContaining('an ERROR entry')]);
  });
});
