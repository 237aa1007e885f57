import type { ErrorValue } from '../shared/error-codes.ts';
import { jsonLine } from '../shared/json-lines.ts';
import type { QueryResult } from '../peer/host.ts';

/** The streams a command uses, injected so that tests run commands in-process. */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

/** Writes text and waits for the stream to take it when its buffer is full. */
export async function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  if (!stream.write(text)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
}

/**
 * A statement's result as one JSON line, the shape `exec` and `peer` answer with. Like every JSON
 * line the CLI writes, U+2028 and U+2029 in it are escaped (`jsonLine`).
 */
export function resultLine(result: QueryResult): string {
  return jsonLine({ items: result.items, mutatedDocumentIds: result.mutatedDocumentIds, commitId: result.commitId });
}

/** An error as one JSON line: `{"error": {code, message, details?}}`. */
export function errorLine(error: ErrorValue): string {
  const body = error.details === undefined ? { code: error.code, message: error.message } : error;
  return jsonLine({ error: body });
}

/**
 * Runs a long-lived command until it returns, or until SIGINT or SIGTERM resolves `stop` (with
 * the signal). Only the first signal stops gracefully; a second one (the listeners removed by
 * then) ends the process at once.
 */
export async function untilSignal(run: (stop: Promise<NodeJS.Signals>) => Promise<number>): Promise<number> {
  let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const stop = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = resolve;
  });
  const once = (signal: NodeJS.Signals): void => {
    process.removeListener('SIGINT', once);
    process.removeListener('SIGTERM', once);
    onSignal(signal);
  };
  process.on('SIGINT', once);
  process.on('SIGTERM', once);
  try {
    return await run(stop);
  } finally {
    process.removeListener('SIGINT', once);
    process.removeListener('SIGTERM', once);
  }
}
