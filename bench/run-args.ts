/**
 * The command line of `npm run bench [-- SUITE …]`, as pure functions (no process, no I/O) so
 * that bench/run-args.test.ts can check them: the suites grouped by name, the arguments parsed,
 * the help text.
 */
import type { Suite } from './harness.ts';

/** The suites sharing one name: selected together, listed once. */
export interface SuiteGroup {
  readonly name: string;
  readonly summary: string;
  readonly durationSeconds: number;
  readonly suites: readonly Suite[];
}

/**
 * The suites grouped by name, in the order each name first appears. Throws when suites of one
 * name disagree on their summary or duration (a mistake in a suite's definition, not in the
 * command line).
 */
export function suiteGroups(suites: readonly Suite[]): SuiteGroup[] {
  const groups = new Map<string, { name: string; summary: string; durationSeconds: number; suites: Suite[] }>();
  for (const suite of suites) {
    const group = groups.get(suite.name);
    if (group === undefined) {
      groups.set(suite.name, { name: suite.name, summary: suite.summary, durationSeconds: suite.durationSeconds, suites: [suite] });
      continue;
    }
    if (group.summary !== suite.summary || group.durationSeconds !== suite.durationSeconds) {
      throw new Error(`the suites named ${suite.name} give different summaries or durations; every suite of one name must give the same`);
    }
    group.suites.push(suite);
  }
  return [...groups.values()];
}

export type BenchArgs =
  { readonly kind: 'help' } | { readonly kind: 'run'; readonly suites: readonly Suite[] } | { readonly kind: 'error'; readonly message: string };

const HELP_HINT = 'run npm run bench -- --help for the list';

/**
 * What the arguments after `npm run bench --` ask for. `-h`/`--help` anywhere wins; an unknown
 * option or suite name is an error (one line, for stderr); no names runs every suite. The
 * suites run in their own order, whatever the order of the names.
 */
export function parseBenchArgs(args: readonly string[], suites: readonly Suite[]): BenchArgs {
  if (args.some((arg) => arg === '-h' || arg === '--help')) return { kind: 'help' };
  const options = args.filter((arg) => arg.startsWith('-'));
  if (options.length > 0) {
    return { kind: 'error', message: `unknown option${options.length > 1 ? 's' : ''} ${quoted(options)}; ${HELP_HINT.replace('the list', 'usage')}` };
  }
  if (args.length === 0) return { kind: 'run', suites };
  const known = new Set(suites.map((suite) => suite.name));
  const unknown = [...new Set(args.filter((name) => !known.has(name)))];
  if (unknown.length > 0) {
    return { kind: 'error', message: `unknown suite${unknown.length > 1 ? 's' : ''} ${quoted(unknown)}; ${HELP_HINT}` };
  }
  return { kind: 'run', suites: suites.filter((suite) => args.includes(suite.name)) };
}

function quoted(values: readonly string[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
}

/** `25 s`, `105 s`, `2 min`, `10.5 min`: a rough duration, as the help text shows it. */
export function roughDuration(seconds: number): string {
  const rounded = Math.round(seconds / 5) * 5;
  if (rounded < 120) return `${rounded} s`;
  return `${Math.round((seconds / 60) * 2) / 2} min`;
}

/** The text of `npm run bench -- --help`: usage, then every suite name once, with what it measures and how long it takes. */
export function helpText(groups: readonly SuiteGroup[]): string {
  const nameWidth = Math.max(...groups.map((group) => group.name.length));
  const durations = groups.map((group) => `~${roughDuration(group.durationSeconds)}`);
  const durationWidth = Math.max(...durations.map((duration) => duration.length));
  const total = groups.reduce((sum, group) => sum + group.durationSeconds, 0);
  return [
    'Usage: npm run bench [-- SUITE …]',
    '',
    'Runs every benchmark suite in order, or only the SUITEs named, each against a baseline doing',
    'the same work by hand. Tables go to stdout, progress to stderr. Exit status: 0 when every suite',
    'ran (a missed target is a finding), 1 when a suite crashed, 2 for an unknown suite or option.',
    '',
    'Suites, with the time of one run on 2 cores (docs/benchmarks.md describes every row):',
    ...groups.map((group, i) => `  ${group.name.padEnd(nameWidth)}  ${(durations[i] as string).padStart(durationWidth)}  ${group.summary}`),
    `  ${'(all)'.padEnd(nameWidth)}  ${`~${roughDuration(total)}`.padStart(durationWidth)}`,
    '',
    'Options:',
    '  -h, --help  this text',
  ].join('\n');
}
