/**
 * Run by sync.test.ts in a child process started with `--expose-gc`: a `Sync` dropped without
 * close() must be reported when it is garbage collected, log the shutdown sequence, and release
 * its directory. Usage: `node --expose-gc forgotten-sync.ts <base directory>`.
 *
 * Log lines go to standard output, between `phase …` markers the test checks. Exits 0 once a new
 * `Sync` has opened the forgotten one's directory; 1 if the Sync was never collected; 2 on misuse.
 */
import { join } from 'node:path';
import { Sync } from '../peer/sync/sync.ts';
import { SyncLogger } from '../peer/log/sync-logger.ts';

const gc = (globalThis as { gc?: () => void }).gc;
const base = process.argv[2];
if (gc === undefined || base === undefined) {
  process.stderr.write('usage: node --expose-gc forgotten-sync.ts <base directory>\n');
  process.exit(2);
}

const say = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

SyncLogger.setConsole((line) => process.stdout.write(`${line}\n`));
SyncLogger.minimumLogLevel = 'INFO';

let reported = false;
SyncLogger.setCustomLogCallback((entry) => {
  if (entry.event === 'sync.garbage-collected-while-open') reported = true;
});

// Each Sync lives only inside its function: once it returns, nothing refers to it.
function openAndClose(directory: string): void {
  new Sync({ persistenceDirectory: directory }).close();
}
function openAndForget(directory: string): void {
  new Sync({ persistenceDirectory: directory });
}

say('phase closed');
openAndClose(join(base, 'closed'));

say('phase forgotten');
openAndForget(join(base, 'forgotten'));

let rounds = 0;
while (!reported && rounds < 50) {
  rounds++;
  gc();
  await new Promise((resolve) => setTimeout(resolve, 20));
}
if (!reported) {
  say(`phase never-collected after ${rounds} rounds`);
  process.exit(1);
}
// A few more rounds: the Sync closed explicitly must not be reported when it is collected.
for (let i = 0; i < 5; i++) {
  gc();
  await new Promise((resolve) => setTimeout(resolve, 20));
}

say('phase reopen');
const again = new Sync({ persistenceDirectory: join(base, 'forgotten') });
say('reopened');
again.close();
say('phase done');
