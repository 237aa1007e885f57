/**
 * Durations on the command line: a number and a unit, `500ms`, `10s`, `1.5s`, `2m`, `1h`, or a
 * bare `0`. A bare number other than 0 is refused: its unit would be a guess.
 */

const UNITS_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The duration in whole milliseconds, or undefined when the text is not one. */
export function parseDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
  if (m === null) return undefined;
  const ms = Math.round(Number(m[1]) * (UNITS_MS[m[2] as string] as number));
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** A duration as the command line would write it: `10s`, `2m`, `1500ms`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0';
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
