/**
 * TEST HELPER: a strict reader of the Prometheus text exposition format (version 0.0.4), so that
 * tests check that `/metrics` parses and read its samples. Throws on any line it cannot read.
 */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  readonly samples: readonly Sample[];
  /** Metric family name → counter, gauge, histogram, summary or untyped. */
  readonly types: ReadonlyMap<string, string>;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** As Prometheus reads a value (Go's strconv.ParseFloat): NaN and Inf in any case (prom-client writes `Nan`). */
function parseValue(text: string, line: string): number {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text);
  if (special !== null) {
    if ((special[2] as string).toLowerCase() === 'nan') return Number.NaN;
    return special[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  const value = Number(text);
  if (text === '' || Number.isNaN(value)) throw new Error(`not a sample value: ${line}`);
  return value;
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== '') {
    const m = LABEL.exec(rest);
    if (m === null) throw new Error(`malformed labels: ${line}`);
    labels[m[1] as string] = (m[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(m[0].length);
  }
  return labels;
}

/** The family a sample belongs to: `x_bucket`, `x_sum` and `x_count` belong to histogram or summary `x`. */
function familyOf(name: string, types: ReadonlyMap<string, string>): string | undefined {
  if (types.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return types.has(base) ? base : undefined;
}

export function parsePrometheusText(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) {
      if (!new RegExp(`^# HELP ${NAME} `).test(line)) throw new Error(`malformed HELP: ${line}`);
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      if (name === undefined || !new RegExp(`^${NAME}$`).test(name) || type === undefined || !TYPES.has(type)) throw new Error(`malformed TYPE: ${line}`);
      types.set(name, type);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (m === null) throw new Error(`malformed sample: ${line}`);
    const name = m[1] as string;
    if (familyOf(name, types) === undefined) throw new Error(`sample of a metric with no TYPE line: ${line}`);
    samples.push({ name, labels: parseLabels(m[2] ?? '', line), value: parseValue(m[3] as string, line) });
  }
  return { samples, types };
}

/** The value of the sample `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(exposition: Exposition, name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  const found = exposition.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found?.value;
}
