/**
 * `syncmesh peer` at the end of its input, as a real process against a Big Peer on 127.0.0.1:
 * it waits until the Big Peer has acknowledged what the input wrote, so that the document is
 * there once the process has exited; when the Big Peer stops answering or goes out of reach
 * (behind a TCP relay the test freezes or cuts), it exits 1 within --drain-timeout, saying what
 * is pending; a signal or --drain-timeout 0 stops it without waiting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAYGROUND_TOKEN, TEST_APP, startTestPeer, type TestPeer } from '../testing/big-peer/test-helpers.ts';
import { exitOf, startNode, stopAll, until, type Run } from '../testing/cli/child-process-fixture.ts';
import { startTcpRelay, type TcpRelay } from '../testing/cli/tcp-relay-fixture.ts';

const BIN = 'bin/syncmesh.js';
const INSERT = 'INSERT INTO orders DOCUMENTS (:o)\t{"o": {"_id": "o9", "total": 7}}';

/** The JSON error line that ends standard error. */
function finalError(run: Run): { code: string; message: string; details?: any } {
  const last = run.stderr.trimEnd().split('\n').at(-1) ?? '';
  if (!last.startsWith('{"error"')) throw new Error(`standard error does not end with an error line:\n${run.stderr}`);
  return (JSON.parse(last) as { error: { code: string; message: string; details?: any } }).error;
}

describe('syncmesh peer at the end of its input', () => {
  let dir: string;
  let bigPeer: TestPeer;
  let relay: TcpRelay | undefined;

  const peer = (url: string, extra: readonly string[] = []): Run =>
    startNode([BIN, 'peer', '--store', join(dir, 'store'), '--app-id', TEST_APP, '--playground-token', PLAYGROUND_TOKEN, '--big-peer', url, ...extra]);
  /** Resolves once the peer runs a session with the Big Peer. */
  const inSession = (run: Run): Promise<void> => until(run, () => run.stderr.includes('VirtConnElectedNewConn'), 'a session with the Big Peer');
  const onBigPeer = async (): Promise<unknown[]> => (await bigPeer.peer.sync.store.execute('SELECT * FROM orders')).items;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'peer-drain-'));
    bigPeer = await startTestPeer();
  });
  afterEach(async () => {
    await stopAll();
    await relay?.cut();
    relay = undefined;
    await bigPeer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('waits until the Big Peer has acknowledged what the piped input wrote: the document is on the Big Peer once the process has exited 0', async () => {
    const run = peer(bigPeer.url, ['--subscribe', 'SELECT * FROM orders']);
    // All at once, as the README's pipe does: the input ends before the first session opens.
    run.child.stdin.end(`${INSERT}\nSELECT _id, total FROM orders WHERE total > :min\t{"min": 1}\n`);
    const ended = Date.now();
    expect(await exitOf(run)).toBe(0);
    const runMs = Date.now() - ended;
    expect(await onBigPeer()).toEqual([{ _id: 'o9', total: 7 }]);
    expect(run.stdout.split('\n').filter((l) => l !== '')).toEqual([
      '{"items":[],"mutatedDocumentIds":["o9"],"commitId":1}',
      '{"items":[{"_id":"o9","total":7}],"mutatedDocumentIds":[],"commitId":null}',
    ]);
    expect(run.stderr).toMatch(/Sync stopped[^]*Shutting down[^]*Deallocating\n$/);
    // The whole run (start, login, first session, the wait) is well inside the default bound.
    expect(runMs).toBeLessThan(10_000);
  });

  it('exits 1 within --drain-timeout when the Big Peer stops acknowledging, naming the pending txn_id and since when, after the shutdown sequence', async () => {
    relay = await startTcpRelay(bigPeer.url);
    const run = peer(relay.url, ['--drain-timeout', '1500ms']);
    await inSession(run);
    relay.freeze();
    run.child.stdin.end(`${INSERT}\n`);
    const ended = Date.now();
    expect(await exitOf(run)).toBe(1);
    const waited = Date.now() - ended;
    expect(waited).toBeGreaterThanOrEqual(1_500);
    expect(waited).toBeLessThan(6_000);
    const error = finalError(run);
    expect(error.code).toBe('cli/drain-timeout');
    expect(error.message).toMatch(
      /^the Big Peer did not acknowledge 1 commit of this store within 1500ms \(--drain-timeout\): txn_id 1, pending since \d{4}-\d\d-\d\dT[\d:.]+Z \(1\.\d s\); it holds every change up to txn_id 0; a session with the Big Peer is open\. They stay in the store and are uploaded by its next session with the Big Peer$/,
    );
    expect(error.details).toMatchObject({
      pendingCommits: 1,
      pendingTxnIds: { first: 1, last: 1 },
      acknowledgedUpTo: 0,
      upTo: 1,
      bigPeerSession: true,
      drainTimeoutMs: 1500,
    });
    expect(run.stderr).toMatch(/Sync stopped[^]*Deallocating\n\{"error":\{"code":"cli\/drain-timeout"/);
    expect(await onBigPeer()).toEqual([]);
  });

  it('exits 1 within --drain-timeout when the Big Peer is out of reach, saying no session is open; the next run uploads what is pending', async () => {
    relay = await startTcpRelay(bigPeer.url);
    const first = peer(relay.url, ['--drain-timeout', '1s']);
    await inSession(first);
    await relay.cut();
    first.child.stdin.end(`${INSERT}\n`);
    const ended = Date.now();
    expect(await exitOf(first)).toBe(1);
    const waited = Date.now() - ended;
    expect(waited).toBeGreaterThanOrEqual(1_000);
    expect(waited).toBeLessThan(5_000);
    expect(finalError(first)).toMatchObject({ code: 'cli/drain-timeout', details: { pendingCommits: 1, bigPeerSession: false } });
    expect(finalError(first).message).toContain('txn_id 1, pending since');
    expect(await onBigPeer()).toEqual([]);

    // The same store, the Big Peer back within reach (its certificate is cached): an empty input uploads it.
    const second = peer(bigPeer.url);
    second.child.stdin.end();
    expect(await exitOf(second)).toBe(0);
    expect(await onBigPeer()).toEqual([{ _id: 'o9', total: 7 }]);
  });

  it('with --drain-timeout 0 stops at once at the end of its input and exits 0, whatever is pending', async () => {
    relay = await startTcpRelay(bigPeer.url);
    const run = peer(relay.url, ['--drain-timeout', '0']);
    await inSession(run);
    relay.freeze();
    run.child.stdin.end(`${INSERT}\n`);
    expect(await exitOf(run, 5_000)).toBe(0);
    expect(run.stderr).not.toContain('{"error"');
  });

  it('stops at once on SIGTERM while it waits for the Big Peer, and exits 0', async () => {
    relay = await startTcpRelay(bigPeer.url);
    const run = peer(relay.url, ['--drain-timeout', '2m']);
    await inSession(run);
    relay.freeze();
    run.child.stdin.end(`${INSERT}\n`);
    await until(run, () => run.stdout.includes('"commitId":1'), 'the answer to the INSERT');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalled = Date.now();
    run.child.kill('SIGTERM');
    expect(await exitOf(run, 5_000)).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(3_000);
    expect(run.stderr).toMatch(/Sync stopped[^]*Deallocating\n$/);
  });
});
