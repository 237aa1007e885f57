/**
 * LIKE on a field with a constant pattern runs as SQLite GLOB (sql-translate.ts). GLOB must answer
 * exactly what the evaluator's matcher answers, on the text GLOB is given (no NUL, no lone
 * surrogate: those never reach it).
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../testing/seeded-random.ts';
import { likeMatches, likeToGlob } from '../dql/like.ts';

const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => BetterSqlite3.Database;

const PIECES = ['a', 'b', 'A', '%', '_', '*', '?', '[', ']', '^', '!', '-', '\\', 'é', '\uffff', '\u{1F600}', '\n'];

describe('likeToGlob', () => {
  const db = new Database(':memory:');
  afterAll(() => db.close());
  const glob = db.prepare('SELECT ? GLOB ? AS m').pluck();

  it('makes SQLite GLOB agree with likeMatches on 20,000 random texts and patterns', () => {
    const r = seededRandom(1801);
    const textPieces = PIECES.filter((p) => p !== '%' && p !== '_');
    const pick = (pieces: readonly string[], max: number) =>
      Array.from({ length: Math.floor(r() * (max + 1)) }, () => pieces[Math.floor(r() * pieces.length)]).join('');
    for (let k = 0; k < 20_000; k++) {
      const text = pick(r() < 0.3 ? PIECES : textPieces, 8);
      const pattern = pick(PIECES.concat(['%', '_']), 6);
      expect(glob.get(text, likeToGlob(pattern)) === 1, `${JSON.stringify(text)} LIKE ${JSON.stringify(pattern)}`).toBe(likeMatches(text, pattern, false));
    }
  });

  it('lets SQLite answer 2,000 texts of 200 characters against 20 % in a few milliseconds', () => {
    db.exec('CREATE TABLE texts (s TEXT)');
    const insert = db.prepare('INSERT INTO texts VALUES (?)');
    for (let i = 0; i < 2_000; i++) insert.run('a'.repeat(200));
    const started = performance.now();
    const count = db
      .prepare('SELECT count(*) FROM texts WHERE s GLOB ?')
      .pluck()
      .get(likeToGlob('%a'.repeat(19) + '%b'));
    expect(count).toBe(0);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
