/**
 * `syncmesh exec`: runs DQL against a store directory and prints JSON.
 *
 *   syncmesh exec --store DIR [--args JSON] "STATEMENT"   one result object; exit 0, or 1 on an error
 *   syncmesh exec --store DIR --jsonl                     one {"statement","args"} per input line, one
 *                                                          result or error per output line, in order
 */
import { parseArgs } from 'node:util';
import { MAX_LINE_BYTES } from '../shared/json-lines.ts';
import { LOG_LEVELS, type LogLevel } from '../shared/log.ts';
import { LogHub, Sync, toErrorValue } from '../peer/host.ts';
import { errorLine, resultLine, write, type CliIo } from './io.ts';
import { LineReader, lineTooLongError } from './line-reader.ts';

export const EXEC_USAGE = `Usage:
  syncmesh exec --store DIR [--args JSON] "STATEMENT"
  syncmesh exec --store DIR --jsonl < statements.jsonl

Runs DQL against the store in DIR (created if missing) and prints JSON:
  {"items":[…],"mutatedDocumentIds":[…],"commitId":n|null}
or, on an error, {"error":{"code":"…","message":"…"}} with exit status 1.

Options:
  --store DIR    the store's persistence directory (required)
  --args JSON    the statement's named arguments, a JSON object: '{"ttl":"2026-11-18T00:00:00.000Z"}'
  --log-level L  show the peer's log lines at L and above on standard error
                 (ERROR, WARN, INFO, DEBUG or VERBOSE; default: no log lines)
  --jsonl        read one {"statement": "…", "args": {…}} object per line from standard input and
                 write one result or error object per line, in order; blank lines are skipped;
                 exit status 0 once every line is answered, whatever the answers. A line ends at
                 LF or CRLF only; one over ${MAX_LINE_BYTES / 1024 / 1024} MiB gets a cli/invalid-line error
  -h, --help     this text
`;

class UsageError extends Error {}

interface ExecOptions {
  readonly store: string | undefined;
  readonly args: string | undefined;
  readonly jsonl: boolean;
  readonly help: boolean;
  readonly statement: string | undefined;
  readonly logLevel: LogLevel | undefined;
}

function parse(argv: readonly string[]): ExecOptions {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: {
        store: { type: 'string' },
        args: { type: 'string' },
        jsonl: { type: 'boolean', default: false },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length > 1) throw new UsageError(`give the statement as one argument (quote it); found ${positionals.length} arguments`);
    const logLevel = values['log-level']?.toUpperCase();
    if (logLevel !== undefined && !(LOG_LEVELS as readonly string[]).includes(logLevel)) {
      throw new UsageError(`--log-level takes one of ${LOG_LEVELS.join(', ')}, not ${values['log-level']}`);
    }
    return {
      store: values.store,
      args: values.args,
      jsonl: values.jsonl,
      help: values.help,
      statement: positionals[0],
      logLevel: logLevel as LogLevel | undefined,
    };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Runs the command; resolves to the exit status. */
export async function execCommand(argv: readonly string[], io: CliIo): Promise<number> {
  let options: ExecOptions;
  try {
    options = parse(argv);
    if (options.help) {
      await write(io.stdout, EXEC_USAGE);
      return 0;
    }
    if (options.store === undefined || options.store === '') throw new UsageError('--store DIR is required');
    if (options.jsonl && (options.statement !== undefined || options.args !== undefined)) {
      throw new UsageError('--jsonl reads statements from standard input; give no statement or --args');
    }
    if (!options.jsonl && options.statement === undefined) throw new UsageError('give a statement, or --jsonl');
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    await write(io.stdout, errorLine({ code: 'cli/usage', message: error.message }));
    await write(io.stderr, `\n${EXEC_USAGE}`);
    return 2;
  }

  // Standard output carries only JSON; log lines go to standard error, and only when asked for.
  const logHub = new LogHub({ minimumLogLevel: options.logLevel ?? 'ERROR' });
  if (options.logLevel !== undefined) logHub.setConsole((line) => io.stderr.write(`${line}\n`));
  else logHub.enabled = false;
  let sync: Sync;
  try {
    sync = new Sync({ persistenceDirectory: options.store, logHub });
  } catch (error) {
    await write(io.stdout, errorLine(toErrorValue(error)));
    return 1;
  }
  try {
    return options.jsonl ? await runLines(sync, io) : await runOne(sync, options.statement as string, options.args, io);
  } finally {
    sync.close();
  }
}

async function runOne(sync: Sync, statement: string, argsText: string | undefined, io: CliIo): Promise<number> {
  let args: Record<string, unknown> | undefined;
  if (argsText !== undefined) {
    try {
      args = JSON.parse(argsText) as Record<string, unknown>;
    } catch (error) {
      await write(io.stdout, errorLine({ code: 'query/arguments-invalid', message: `--args is not valid JSON: ${(error as Error).message}` }));
      return 1;
    }
  }
  try {
    await write(io.stdout, resultLine(await sync.store.execute(statement, args)));
    return 0;
  } catch (error) {
    await write(io.stdout, errorLine(toErrorValue(error)));
    return 1;
  }
}

async function runLines(sync: Sync, io: CliIo): Promise<number> {
  for await (const line of new LineReader(io.stdin)) {
    const { number } = line;
    if (line.kind === 'too-long') {
      await write(io.stdout, errorLine(lineTooLongError(line)));
      continue;
    }
    if (line.text.trim() === '') continue;
    let request: unknown;
    try {
      request = JSON.parse(line.text);
    } catch (error) {
      await write(io.stdout, errorLine({ code: 'cli/invalid-line', message: `line ${number} is not JSON: ${(error as Error).message}` }));
      continue;
    }
    const { statement, args } = (typeof request === 'object' && request !== null ? request : {}) as { statement?: unknown; args?: unknown };
    if (typeof statement !== 'string') {
      await write(io.stdout, errorLine({ code: 'cli/invalid-line', message: `line ${number} has no string "statement"` }));
      continue;
    }
    try {
      await write(io.stdout, resultLine(await sync.store.execute(statement, args as Record<string, unknown> | undefined)));
    } catch (error) {
      await write(io.stdout, errorLine(toErrorValue(error)));
    }
  }
  return 0;
}
