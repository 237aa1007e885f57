/**
 * The `syncmesh` command line: one subcommand per file. Each command takes its arguments and the
 * standard streams and resolves to an exit status, so that tests run it in-process.
 */
import { readFileSync } from 'node:fs';
import { bigPeerCommand } from './big-peer.ts';
import { execCommand } from './exec.ts';
import { inspectCommand } from './inspect.ts';
import { peerCommand } from './peer.ts';
import { scenarioCommand } from './scenario.ts';
import { write, type CliIo } from './io.ts';

export type { CliIo } from './io.ts';

const COMMANDS: Readonly<Record<string, { summary: string; run: (argv: readonly string[], io: CliIo) => Promise<number> }>> = {
  exec: { summary: 'run DQL against a store directory and print JSON', run: execCommand },
  peer: { summary: 'run a headless small peer: sync with a Big Peer, run DQL read from standard input', run: peerCommand },
  inspect: { summary: 'run a headless peer and serve the mesh inspector to a browser on 127.0.0.1', run: inspectCommand },
  'big-peer': { summary: 'serve the Big Peer (HTTP API, login, sync WebSocket); manage its API keys', run: bigPeerCommand },
  scenario: { summary: 'run a scenario end to end on a local Big Peer and small peer: evict-loop (the evict/re-sync loop)', run: scenarioCommand },
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const USAGE = `Usage: syncmesh <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}

Run 'syncmesh <command> --help' for a command's options; 'syncmesh --version' for the version.
`;

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    await write(io.stdout, USAGE);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    await write(io.stdout, `${version()}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    await write(io.stderr, `syncmesh: unknown command '${name}'\n\n${USAGE}`);
    return 2;
  }
  return command.run(rest, io);
}
