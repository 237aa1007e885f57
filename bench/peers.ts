/**
 * What the suites that run peers share: their log hub (an ERROR fails the suite), the bound on
 * setting a peer up or down, and the small steps every such suite takes.
 */
import { LogHub, type Sync } from '../src/peer/host.ts';
import { check, within, type SuiteContext } from './harness.ts';

/** Starting or stopping a peer, a Big Peer or a server takes at most this long. */
export const SETUP_TIMEOUT_MS = 30_000;

/** The log hub of peers: WARN and up, no console, few entries kept; an ERROR fails the suite. */
export class Logs {
  readonly hub = new LogHub({ minimumLogLevel: 'WARN', recentCapacity: 100 });
  readonly errors: string[] = [];
  readonly warnings: string[] = [];

  constructor() {
    this.hub.setCustomLogCallback((entry) => (entry.level === 'ERROR' ? this.errors : this.warnings).push(`${entry.component}: ${entry.message}`));
  }

  /** Throws on any ERROR; reports how many WARN entries came, with the first, and forgets them. */
  checkpoint(context: SuiteContext, where: string): void {
    check(this.errors.length === 0, () => `${where}: ${this.errors.length} ERROR log entr(y/ies): ${this.errors.slice(0, 3).join(' | ')}`);
    if (this.warnings.length > 0) context.log(`${where}: ${this.warnings.length} WARN entr(y/ies), e.g. ${this.warnings[0]}`);
    this.warnings.length = 0;
  }

  /** The entries seen since the last call, taken (for a suite that gathers logs from several processes). */
  async logs(): Promise<{ errors: string[]; warnings: string[] }> {
    return { errors: this.errors.splice(0), warnings: this.warnings.splice(0) };
  }
}

/** Stops a small peer's sync (bounded) and closes it. */
export async function closePeer(sync: Sync): Promise<void> {
  try {
    await within(sync.stopSync(), SETUP_TIMEOUT_MS, 'stopping sync');
  } finally {
    sync.close();
  }
}

/** How many live documents the collection holds, checked to be a number. */
export async function countOf(sync: Sync, collection: string): Promise<number> {
  const n = (await sync.store.execute(`SELECT COUNT(*) AS n FROM ${collection}`)).items[0]?.n;
  check(typeof n === 'number', () => `SELECT COUNT(*) FROM ${collection} answered ${JSON.stringify(n)}`);
  return n as number;
}
