/**
 * What the Logs panel shows: a level threshold (in LOG_LEVELS order), components to hide, and a
 * text query over the message, the event name and the structured fields. Compiled once per
 * filter change into a predicate, so that the hot path (every arriving entry) does no parsing.
 */
import { LOG_LEVELS, type LogEntry, type LogLevel } from '../../../../shared/log.ts';
import { errorMessage } from '../../../../shared/error-message.ts';

export interface LogFilter {
  /** Entries at this level and every more severe one are shown. */
  readonly level: LogLevel;
  /** Components left out; a component seen for the first time is shown. */
  readonly hiddenComponents: readonly string[];
  /** Case-insensitive text, or a regular expression written `/like this/i`. */
  readonly text: string;
}

export const SHOW_EVERYTHING: LogFilter = { level: 'VERBOSE', hiddenComponents: [], text: '' };

export interface CompiledFilter {
  readonly filter: LogFilter;
  /**
   * Does the entry pass? `text` is the entry's `searchText`, when the caller keeps it (the log
   * buffer does, per slot); without it, it is built for this call.
   */
  readonly matches: (entry: LogEntry, text?: string) => boolean;
  /** Does `matches` look at the entry's search text (is there a plain text query)? */
  readonly usesText: boolean;
  /** Where the text query matches inside a message, for highlighting; empty without a query. */
  readonly ranges: (text: string) => readonly (readonly [number, number])[];
  /** Why the text query could not be used as a regular expression (then it is matched as text). */
  readonly textError: string | undefined;
  /** Does this filter let every entry through? */
  readonly passesEverything: boolean;
}

/**
 * Everything a text query looks at, lower-cased: message, event, component, and `key=value` per
 * field. Not cached here: the log buffer keeps it per slot of its ring. (A WeakMap keyed by entry
 * did it before; with 80,000 keys its ephemerons made one major GC of the page take 98 ms.)
 */
export function searchText(entry: LogEntry): string {
  const parts = [entry.message, entry.event, entry.component];
  for (const [key, value] of Object.entries(entry.fields)) {
    parts.push(`${key}=${Array.isArray(value) ? value.join(',') : String(value)}`);
  }
  return parts.join('\n').toLowerCase();
}

/** `/body/flags` as a RegExp; undefined when `text` is not written that way. Throws on a bad one. */
function parseRegExp(text: string): RegExp | undefined {
  const m = /^\/(.+)\/([a-z]*)$/s.exec(text);
  if (m === null) return undefined;
  const flags = (m[2] ?? '').replace(/[gy]/g, '');
  return new RegExp(m[1] ?? '', flags);
}

export function compileFilter(filter: LogFilter): CompiledFilter {
  const maxRank = LOG_LEVELS.indexOf(filter.level);
  const rank = new Map<string, number>(LOG_LEVELS.map((level, i) => [level, i]));
  const hidden = new Set(filter.hiddenComponents);
  const query = filter.text.trim();

  let textError: string | undefined;
  let regExp: RegExp | undefined;
  try {
    regExp = parseRegExp(query);
  } catch (error) {
    textError = errorMessage(error);
  }
  const needle = query.toLowerCase();

  let textMatches: ((entry: LogEntry, text: string | undefined) => boolean) | undefined;
  let ranges: CompiledFilter['ranges'] = () => [];
  if (regExp !== undefined) {
    const re = regExp;
    // The haystack is lower-cased; a case-sensitive expression is tried on the original parts.
    textMatches = (entry) =>
      re.test(entry.message) ||
      re.test(entry.event) ||
      re.test(entry.component) ||
      Object.entries(entry.fields).some(([k, v]) => re.test(`${k}=${Array.isArray(v) ? v.join(',') : String(v)}`));
    const global = new RegExp(re.source, `${re.flags}g`);
    ranges = (text) => {
      const found: [number, number][] = [];
      for (const m of text.matchAll(global)) {
        if (m[0].length === 0) break;
        found.push([m.index, m.index + m[0].length]);
      }
      return found;
    };
  } else if (needle !== '') {
    textMatches = (entry, text) => (text ?? searchText(entry)).includes(needle);
    ranges = (text) => {
      const found: [number, number][] = [];
      const lower = text.toLowerCase();
      for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, at + needle.length)) {
        found.push([at, at + needle.length]);
      }
      return found;
    };
  }

  const matches = (entry: LogEntry, text?: string): boolean =>
    (rank.get(entry.level) ?? 0) <= maxRank && !hidden.has(entry.component) && (textMatches === undefined || textMatches(entry, text));

  return {
    filter,
    matches,
    ranges,
    usesText: regExp === undefined && needle !== '',
    textError,
    passesEverything: maxRank === LOG_LEVELS.length - 1 && hidden.size === 0 && textMatches === undefined,
  };
}

/** Splits `text` into plain and highlighted pieces along `ranges` (sorted, not overlapping). */
export function splitByRanges(text: string, ranges: readonly (readonly [number, number])[]): { readonly text: string; readonly hit: boolean }[] {
  const pieces: { text: string; hit: boolean }[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (start < at) continue;
    if (start > at) pieces.push({ text: text.slice(at, start), hit: false });
    pieces.push({ text: text.slice(start, end), hit: true });
    at = end;
  }
  if (at < text.length || pieces.length === 0) pieces.push({ text: text.slice(at), hit: false });
  return pieces;
}
