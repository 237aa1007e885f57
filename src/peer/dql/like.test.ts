import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../testing/seeded-random.ts';
import { QueryEvaluationError } from '../errors.ts';
import { MAX_LIKE_PATTERN_LENGTH, isLikePatternTooLong, likeMatches, type LikeWork } from './like.ts';

/** The matcher LIKE had before issue 18, kept here only as the oracle of its semantics. */
function formerLikeMatches(text: string, pattern: string, caseInsensitive: boolean): boolean {
  let source = '';
  for (const ch of caseInsensitive ? pattern.toLowerCase() : pattern) {
    if (ch === '%') source += '.*';
    else if (ch === '_') source += '.';
    else source += ch.replace(/[\\^$.*+?()[\]{}|/]/gu, '\\$&');
  }
  return new RegExp(`^${source}$`, 'su').test(caseInsensitive ? text.toLowerCase() : text);
}

/** Pieces of texts and patterns: wildcards, case pairs, NUL, a newline, regex syntax, astral characters, lone surrogates, and İ (two code points once lower-cased). */
const PIECES = ['a', 'A', 'b', '%', '_', 'é', 'É', '\u{1F600}', '\0', '\n', '.', '*', '\\', 'İ', '\uD83D', '\uDE00'];

function randomString(r: () => number, maxPieces: number, pieces: readonly string[]): string {
  let s = '';
  const n = Math.floor(r() * (maxPieces + 1));
  for (let i = 0; i < n; i++) s += pieces[Math.floor(r() * pieces.length)] as string;
  return s;
}

function codePoints(s: string): number {
  return [...s].length;
}

/** The bound the matcher promises: one step per code point of text for each pattern position, plus one per retry. */
function stepBound(text: string, pattern: string): number {
  return (codePoints(text) + 1) * (codePoints(pattern) + 2);
}

function stepsOf(text: string, pattern: string, caseInsensitive: boolean): { matched: boolean; steps: number } {
  const work: LikeWork = { steps: 0 };
  const matched = likeMatches(text, pattern, caseInsensitive, work);
  return { matched, steps: work.steps };
}

describe('likeMatches', () => {
  it('agrees with the former regular expression on 30,000 random texts and patterns', () => {
    const r = seededRandom(18);
    const textPieces = PIECES.filter((p) => p !== '%' && p !== '_').concat(['a', 'a', 'b']);
    const patternPieces = PIECES.concat(['%', '%', '_', 'a']);
    for (let k = 0; k < 30_000; k++) {
      const text = randomString(r, 10, r() < 0.2 ? PIECES : textPieces);
      const pattern = randomString(r, 7, patternPieces);
      for (const ci of [false, true]) {
        const { matched, steps } = stepsOf(text, pattern, ci);
        expect(matched, `${JSON.stringify(text)} ${ci ? 'ILIKE' : 'LIKE'} ${JSON.stringify(pattern)}`).toBe(formerLikeMatches(text, pattern, ci));
        if (!ci) expect(steps).toBeLessThanOrEqual(stepBound(text, pattern));
      }
    }
  });

  it('answers the pattern of issue 18 in a few hundred steps where a regular expression backtracked for seconds', () => {
    const text = 'a'.repeat(36);
    const pattern = '%a'.repeat(10) + '%b';
    for (const ci of [false, true]) {
      const { matched, steps } = stepsOf(text, pattern, ci);
      expect(matched).toBe(false);
      expect(steps).toBeLessThan(200);
    }
  });

  it('stays within (n + 1) · (m + 2) steps on the worst inputs for a wildcard matcher', () => {
    const text = 'a'.repeat(20_000);
    const cases = [
      '%' + 'a'.repeat(500) + 'b',
      '%' + 'a_'.repeat(250) + 'b',
      '%a'.repeat(499) + '%b',
      ('%' + 'a'.repeat(20)).repeat(25) + 'b',
      '_'.repeat(998) + '%b',
    ];
    for (const pattern of cases) {
      const { matched, steps } = stepsOf(text, pattern, false);
      expect(matched).toBe(false);
      expect(steps).toBeLessThanOrEqual(stepBound(text, pattern));
    }
  });

  it('matches a 20,000-character text against 500 % in a few milliseconds, with LIKE and ILIKE', () => {
    const text = 'A'.repeat(20_000);
    const pattern = '%a'.repeat(499) + '%b';
    const started = performance.now();
    expect(likeMatches(text, pattern, true)).toBe(false);
    expect(likeMatches(text.toLowerCase(), pattern, false)).toBe(false);
    expect(likeMatches(text, pattern.replace('%b', '%'), true)).toBe(true);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('matches text holding NUL characters, and NUL in patterns, like any other character', () => {
    expect(likeMatches('a\0b', 'a_b', false)).toBe(true);
    expect(likeMatches('a\0b', 'a%', false)).toBe(true);
    expect(likeMatches('a\0b', '%\0%', false)).toBe(true);
    expect(likeMatches('a\0b', 'a\0', false)).toBe(false);
    expect(likeMatches('A\0B', 'a\0b', true)).toBe(true);
    expect(likeMatches('\0', '_', false)).toBe(true);
  });

  it('counts _ as one code point, astral characters included, and never splits a surrogate pair', () => {
    expect(likeMatches('\u{1F600}', '_', false)).toBe(true);
    expect(likeMatches('\u{1F600}', '__', false)).toBe(false);
    expect(likeMatches('x\u{1F600}y', 'x_y', false)).toBe(true);
    expect(likeMatches('\u{1F600}', '%\uDE00', false)).toBe(false);
    expect(likeMatches('\u{1F600}', '\uD83D%', false)).toBe(false);
    expect(likeMatches('\uD83D', '_', false)).toBe(true);
  });

  it('has no escape character: backslash and regular-expression syntax match themselves', () => {
    expect(likeMatches('a\\%', 'a\\%', false)).toBe(true);
    expect(likeMatches('a\\b', 'a\\%', false)).toBe(true);
    expect(likeMatches('a.c', 'a.c', false)).toBe(true);
    expect(likeMatches('abc', 'a.c', false)).toBe(false);
    expect(likeMatches('a*b?[c]', 'a*b?[c]', false)).toBe(true);
  });

  it('compares lower-case forms for ILIKE, even where lower-casing adds a code point', () => {
    expect(likeMatches('Zoë', 'zOË', true)).toBe(true);
    expect(likeMatches('Zoë', 'zOË', false)).toBe(false);
    // 'İ'.toLowerCase() is 'i' followed by a combining dot: two code points.
    expect(likeMatches('İ', '_', true)).toBe(false);
    expect(likeMatches('İ', '__', true)).toBe(true);
    expect(likeMatches('İ', '_', false)).toBe(true);
  });

  it(`refuses a pattern longer than ${MAX_LIKE_PATTERN_LENGTH} code points with query/evaluation, and accepts one of exactly that many astral characters`, () => {
    const tooLong = 'a'.repeat(MAX_LIKE_PATTERN_LENGTH) + '%';
    expect(isLikePatternTooLong(tooLong)).toBe(true);
    for (const ci of [false, true]) {
      let caught: unknown;
      try {
        likeMatches('a', tooLong, ci);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(QueryEvaluationError);
      expect((caught as QueryEvaluationError).code).toBe('query/evaluation');
      expect((caught as QueryEvaluationError).message).toBe(
        `${ci ? 'ILIKE' : 'LIKE'} pattern is ${MAX_LIKE_PATTERN_LENGTH + 1} characters long; patterns hold at most ${MAX_LIKE_PATTERN_LENGTH}`,
      );
    }
    const astral = '\u{1F600}'.repeat(MAX_LIKE_PATTERN_LENGTH);
    expect(isLikePatternTooLong(astral)).toBe(false);
    expect(likeMatches(astral, astral, false)).toBe(true);
  });
});
