/**
 * LIKE patterns: `%` matches any run of characters, `_` exactly one character (code point).
 * There is no escape character; every other character matches itself. LIKE is case-sensitive;
 * ILIKE compares the lower-case forms (JavaScript's Unicode `toLowerCase`).
 */
const cache = new Map<string, RegExp>();

/** A regular expression equivalent to a LIKE pattern. */
export function likeToRegExp(pattern: string, caseInsensitive: boolean): RegExp {
  const cacheKey = (caseInsensitive ? 'i:' : 's:') + pattern;
  const hit = cache.get(cacheKey);
  if (hit !== undefined) return hit;
  let source = '';
  for (const ch of caseInsensitive ? pattern.toLowerCase() : pattern) {
    if (ch === '%') source += '.*';
    else if (ch === '_') source += '.';
    else source += ch.replace(/[\\^$.*+?()[\]{}|/]/gu, '\\$&');
  }
  const re = new RegExp(`^${source}$`, 'su');
  if (cache.size > 500) cache.clear();
  cache.set(cacheKey, re);
  return re;
}

/** Does a string match a LIKE (or ILIKE) pattern? */
export function likeMatches(text: string, pattern: string, caseInsensitive: boolean): boolean {
  return likeToRegExp(pattern, caseInsensitive).test(caseInsensitive ? text.toLowerCase() : text);
}

/** The SQLite GLOB pattern (case-sensitive, one `?` per character) equivalent to a LIKE pattern. */
export function likeToGlob(pattern: string): string {
  let glob = '';
  for (const ch of pattern) {
    if (ch === '%') glob += '*';
    else if (ch === '_') glob += '?';
    else if (ch === '*' || ch === '?' || ch === '[') glob += `[${ch}]`;
    else glob += ch;
  }
  return glob;
}
