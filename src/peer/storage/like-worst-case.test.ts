/**
 * Issue 18, part 1.1: a LIKE or ILIKE pattern of many `%` against text that almost matches used to
 * backtrack exponentially (36 × 'a' against '%a' × 10 + '%b' took 17.5 s) and held the event loop.
 *
 * The statements run through `sync.store.execute` in a child process that is killed after
 * GUARD_MS, so that a regression fails this test instead of hanging the suite: with the old
 * regular expression the first statement alone would take minutes.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MAX_LIKE_PATTERN_LENGTH } from '../dql/like.ts';
import { STORAGES, failureOf, freshPeer, seed } from '../../testing/dql-test-peers.ts';
import { LOG_HUB_MODULE_URL, SYNC_MODULE_URL } from '../../testing/sync-fixtures.ts';

const GUARD_MS = 20_000;
/** What one statement may take; the linear matcher needs about a millisecond. */
const STATEMENT_BUDGET_MS = 1_000;

interface Outcome {
  readonly storage: string;
  readonly statement: string;
  readonly ids: unknown[];
  readonly ms: number;
}

/** The child: both storages, every path LIKE can take (constants, GLOB, dql_like, NUL fallback, JS). */
const CHILD = `
const { Sync } = await import(${JSON.stringify(SYNC_MODULE_URL)});
const { LogHub } = await import(${JSON.stringify(LOG_HUB_MODULE_URL)});
const { mkdtempSync, rmSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');
const text = 'a'.repeat(36);
const miss = '%a'.repeat(13) + '%b';
const hit = '%a'.repeat(13) + '%';
const statements = [
  ['SELECT _id FROM t WHERE :s ILIKE :p', { s: text, p: miss }],
  ['SELECT _id FROM t WHERE :s LIKE :p', { s: text, p: miss }],
  ['SELECT _id FROM t WHERE s ILIKE :p', { p: miss }],
  ['SELECT _id FROM t WHERE s LIKE :p', { p: miss }],
  ['SELECT _id FROM t WHERE nul LIKE :p', { p: miss }],
  ['SELECT _id FROM t WHERE nul ILIKE :p', { p: miss }],
  ['SELECT _id FROM t WHERE s LIKE p', {}],
  ['SELECT _id FROM t WHERE s ILIKE :p', { p: hit }],
  ['SELECT _id FROM t WHERE nul LIKE :p', { p: hit + '\\u0000' }],
];
for (const storage of ['sqlite', 'memory']) {
  const dir = mkdtempSync(join(tmpdir(), 'like-worst-'));
  const sync = storage === 'sqlite' ? new Sync({ logHub: new LogHub(), persistenceDirectory: dir }) : new Sync({ logHub: new LogHub(), inMemory: true });
  try {
    await sync.store.execute('INSERT INTO t DOCUMENTS (:d)', { d: { _id: 1, s: text, nul: text + '\\u0000', p: miss } });
    for (const [statement, args] of statements) {
      const started = performance.now();
      const { items } = await sync.store.execute(statement, args);
      const ms = performance.now() - started;
      process.stdout.write(JSON.stringify({ storage, statement: statement + ' ' + JSON.stringify(args), ids: items.map((i) => i._id), ms }) + '\\n');
    }
  } finally {
    sync.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
`;

/** Runs the child, killing it after GUARD_MS: its outcomes, and whether it finished by itself. */
function runChild(): Promise<{ outcomes: Outcome[]; finished: boolean; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '--no-warnings', '-e', CHILD], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), GUARD_MS);
    child.on('close', (code) => {
      clearTimeout(guard);
      const outcomes = stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Outcome);
      resolve({ outcomes, finished: code === 0, stderr });
    });
  });
}

describe('LIKE and ILIKE against patterns that made a backtracking matcher explode', () => {
  it(
    'answers every path (constants, GLOB, dql_like, NUL fallback, in-memory) within a second per statement',
    async () => {
      const { outcomes, finished, stderr } = await runChild();
      expect(stderr).toBe('');
      expect(finished, `the child was killed after ${GUARD_MS} ms; it had answered ${JSON.stringify(outcomes)}`).toBe(true);
      expect(outcomes).toHaveLength(18);
      for (const o of outcomes) expect(o.ms, o.statement).toBeLessThan(STATEMENT_BUDGET_MS);
      const ids = outcomes.map((o) => o.ids);
      const perStorage = [[], [], [], [], [], [], [], [1], [1]];
      expect(ids).toEqual([...perStorage, ...perStorage]);
    },
    GUARD_MS + 10_000,
  );
});

describe.each(STORAGES)('the LIKE pattern length cap on %s storage', (_kind, openStorage) => {
  const { peer } = freshPeer(openStorage);
  const ids = async (statement: string, args?: Record<string, unknown>) => (await peer().store.execute(statement, args)).items.map((i) => i._id);
  const tooLong = 'a'.repeat(MAX_LIKE_PATTERN_LENGTH) + '%';

  it(`refuses a pattern over ${MAX_LIKE_PATTERN_LENGTH} characters with query/evaluation, from a parameter or a field, with LIKE or ILIKE`, async () => {
    await seed(peer(), 't', [{ _id: 1, s: 'a'.repeat(2000), nul: 'a\0', p: tooLong }]);
    for (const statement of [
      'SELECT * FROM t WHERE s LIKE :p',
      'SELECT * FROM t WHERE s ILIKE :p',
      'SELECT * FROM t WHERE nul LIKE :p',
      'SELECT * FROM t WHERE :s LIKE :p',
      'SELECT * FROM t WHERE s LIKE p',
    ]) {
      const error = await failureOf(peer().store.execute(statement, { p: tooLong, s: 'a' }));
      expect(error.code, statement).toBe('query/evaluation');
      expect(error.message, statement).toBe(
        `${statement.includes('ILIKE') ? 'ILIKE' : 'LIKE'} pattern is ${MAX_LIKE_PATTERN_LENGTH + 1} characters long; patterns hold at most ${MAX_LIKE_PATTERN_LENGTH}`,
      );
    }
  });

  it('does not look at the pattern where the value is not text, as LIKE gives false or unknown there', async () => {
    await seed(peer(), 't', [{ _id: 1, s: 5 }, { _id: 2, s: null }, { _id: 3 }]);
    expect(await ids('SELECT * FROM t WHERE s LIKE :p', { p: tooLong })).toEqual([]);
    expect(await ids('SELECT * FROM t WHERE s NOT ILIKE :p', { p: tooLong })).toEqual([1]);
  });

  it(`accepts a pattern of exactly ${MAX_LIKE_PATTERN_LENGTH} characters, astral or special to GLOB`, async () => {
    const emoji = '\u{1F600}';
    await seed(peer(), 't', [
      { _id: 1, s: emoji.repeat(MAX_LIKE_PATTERN_LENGTH) },
      { _id: 2, s: '*?['.repeat(400) },
    ]);
    expect(await ids('SELECT * FROM t WHERE s LIKE :p', { p: emoji.repeat(MAX_LIKE_PATTERN_LENGTH - 1) + '_' })).toEqual([1]);
    expect(await ids('SELECT * FROM t WHERE s ILIKE :p', { p: emoji.repeat(MAX_LIKE_PATTERN_LENGTH - 1) + '%' })).toEqual([1]);
    expect(await ids('SELECT * FROM t WHERE s LIKE :p', { p: '*?['.repeat(333) + '%' })).toEqual([2]);
  });
});
