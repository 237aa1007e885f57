/**
 * When a certificate counts as expiring soon, and how long to wait before trying a failed
 * login again. Pure functions of times, so that the policy is tested without a clock.
 */

/** A certificate expires soon when less than this share of its lifetime remains… */
export const EXPIRING_SOON_SHARE = 0.1;
/** …or less than this, whichever comes first… */
export const EXPIRING_SOON_MS = 5 * 60_000;
/** …but never before half its lifetime has passed (short-lived certificates). */
const LATEST_SHARE = 0.5;

/** The moment a certificate issued at `issuedAt` and expiring at `expiresAt` starts expiring soon. */
export function expiringSoonAt(issuedAt: number, expiresAt: number): number {
  const lifetime = Math.max(0, expiresAt - issuedAt);
  const margin = Math.min(Math.max(lifetime * EXPIRING_SOON_SHARE, EXPIRING_SOON_MS), lifetime * LATEST_SHARE);
  return Math.floor(expiresAt - margin);
}

export const FIRST_RETRY_MS = 5_000;
export const MAX_RETRY_MS = 5 * 60_000;

/** The wait before retry number `attempt` (from 0): 5 s, doubling, at most 5 minutes. */
export function retryDelayMs(attempt: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.min(attempt, 30), MAX_RETRY_MS);
}

/** Whole seconds from `now` to `at`, never negative: the figure the log lines print. */
export function secondsUntil(at: number, now: number): number {
  return Math.max(0, Math.round((at - now) / 1000));
}
