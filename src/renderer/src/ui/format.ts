/** How the inspector writes numbers, sizes, durations, times and keys. Pure. */

const COUNT = new Intl.NumberFormat('en-US');

/** `100000` → `100,000`. */
export function formatCount(n: number): string {
  return COUNT.format(n);
}

/** `1536` → `1.5 KB`; binary multiples, one decimal below 10 units. */
export { formatBytes } from '../../../shared/format-bytes.ts';

/** A short duration: `850 ms`, `4.2 s`, `3 min 05 s`, `2 h 07 min`, `3 d 4 h`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(abs)} ms`;
  if (abs < 10_000) return `${(abs / 1000).toFixed(1)} s`;
  const seconds = Math.floor(abs / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, '0')} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ${String(minutes % 60).padStart(2, '0')} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** An elapsed time as the console shows it: `0.4 ms`, `12 ms`, `1.3 s`. */
export function formatElapsed(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms < 10) return `${Math.max(0, ms).toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** A countdown to `deadline` seen at `now`: the time left, precise to the second, or how long ago it passed. */
export interface Countdown {
  readonly expired: boolean;
  /** `1 h 02 min 05 s`, `4 min 09 s`, `12 s`. */
  readonly text: string;
  readonly remainingMs: number;
}

export function countdown(deadline: number, now: number): Countdown {
  const remainingMs = deadline - now;
  const total = Math.floor(Math.abs(remainingMs) / 1000);
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  let text: string;
  if (days > 0) text = `${days} d ${hours} h ${two(minutes)} min`;
  else if (hours > 0) text = `${hours} h ${two(minutes)} min ${two(seconds)} s`;
  else if (minutes > 0) text = `${minutes} min ${two(seconds)} s`;
  else text = `${seconds} s`;
  return { expired: remainingMs <= 0, text, remainingMs };
}

/** `2026-03-04T05:06:07.089Z` → `2026-03-04 05:06:07.089` (UTC, as the peer logs it). */
export function formatTimestamp(time: number | string): string {
  const date = typeof time === 'number' ? new Date(time) : new Date(time);
  if (Number.isNaN(date.getTime())) return String(time);
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

/** How long before `now` a time was: `just now`, `12 s ago`, `3 min ago`, `2 h ago`, `4 d ago`. */
export function formatAgo(time: number, now: number): string {
  const ms = now - time;
  if (ms < 1500) return 'just now';
  if (ms < 60_000) return `${Math.floor(ms / 1000)} s ago`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ago`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)} h ago`;
  return `${Math.floor(ms / 86_400_000)} d ago`;
}

/** A peer key shortened for tight places: `pk_3f9a…c21e` (the full key goes in a tooltip). */
export function shortKey(key: string, head = 8, tail = 4): string {
  return key.length <= head + tail + 1 ? key : `${key.slice(0, head)}…${key.slice(-tail)}`;
}

/** A JSON value in one line, cut to `max` characters. */
export function compactJson(value: unknown, max = 200): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'undefined';
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Singular or plural: `plural(1, 'document')` → `1 document`, `plural(3, 'match', 'matches')` → `3 matches`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
