/**
 * When eviction may run (spec 1.5, 8): at most once per day per collection, inside a
 * low-activity window of the day (UTC `HH:MM-HH:MM`, which may wrap midnight), and not soon
 * after a write transaction was blocked. Pure functions of the time, so tests pass any clock.
 */
import { SyncError } from '../errors.ts';

export const DAY_MS = 24 * 3_600_000;
export const DEFAULT_WINDOW = '02:00-05:00';
/** A scheduled or unforced run waits this long after a write was blocked. */
export const DEFAULT_QUIET_AFTER_BLOCKED_MS = 15 * 60_000;
/** A write that waited this long or more for the slot counts as blocked. */
export const BLOCKED_WAIT_MS = 1_000;
/** A postponed run is tried again after this long at the least. */
export const RETRY_AFTER_MS = 60_000;

export interface DailyWindow {
  readonly text: string;
  /** Minutes after midnight UTC. */
  readonly start: number;
  readonly end: number;
}

export function parseWindow(text: string): DailyWindow {
  const m = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (m === null) throw new SyncError('eviction/invalid', `an eviction window is UTC HH:MM-HH:MM (such as ${DEFAULT_WINDOW}), not ${JSON.stringify(text)}`);
  const start = Number(m[1]) * 60 + Number(m[2]);
  const end = Number(m[3]) * 60 + Number(m[4]);
  if (start === end) throw new SyncError('eviction/invalid', `the eviction window ${text} is empty: its start and end are the same`);
  return { text, start, end };
}

const minuteOfDay = (t: number): number => Math.floor((t % DAY_MS) / 60_000);

export function inWindow(window: DailyWindow, t: number): boolean {
  const m = minuteOfDay(t);
  return window.start < window.end ? m >= window.start && m < window.end : m >= window.start || m < window.end;
}

/** The first moment at or after `t` inside the window. */
export function nextInWindow(window: DailyWindow, t: number): number {
  if (inWindow(window, t)) return t;
  const midnight = t - (t % DAY_MS);
  const start = midnight + window.start * 60_000;
  return start > t ? start : start + DAY_MS;
}

/**
 * When the next scheduled run of a collection is due: inside the window, a day or more after
 * the last run (none: as soon as the window allows).
 */
export function nextRunAt(window: DailyWindow, now: number, lastRunAt: number | undefined): number {
  return nextInWindow(window, Math.max(now, lastRunAt === undefined ? now : lastRunAt + DAY_MS));
}

/** Why a run may not happen now, unless forced; undefined when it may. */
export function tooSoon(now: number, lastRunAt: number | undefined): string | undefined {
  if (lastRunAt === undefined || now - lastRunAt >= DAY_MS) return undefined;
  const hours = (now - lastRunAt) / 3_600_000;
  return `it ran ${hours < 1 ? `${Math.round(hours * 60)} minutes` : `${Math.round(hours * 10) / 10} hours`} ago, at ${new Date(lastRunAt).toISOString()}; eviction runs at most once per day (spec 8); the next run may start at ${new Date(lastRunAt + DAY_MS).toISOString()}`;
}
