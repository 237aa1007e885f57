/**
 * After the browser tests: no process or temporary folder of theirs may stay behind. Each test
 * file stops its processes and removes its folder (e2e/processes.ts), also when a worker exits
 * early; a worker killed outright (SIGKILL) can do neither. A folder whose worker is gone is
 * removed here, after killing any process still running on it (its command line names the
 * folder: `--store`, `--data`), and it is said.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FOLDER_PREFIX } from './processes.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Processes whose command line mentions `path` (Linux /proc; elsewhere none are found). */
function processesUsing(path: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (
        readFileSync(`/proc/${entry}/cmdline`, 'utf8')
          .split('\0')
          .some((arg) => arg.startsWith(path))
      )
        found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

export default function globalTeardown(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(FOLDER_PREFIX)) continue;
    const pid = Number(/-(\d+)-[^-]+$/.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || alive(pid)) continue;
    const folder = join(tmpdir(), name);
    for (const orphan of processesUsing(folder)) {
      try {
        process.kill(orphan, 'SIGKILL');
        console.warn(`e2e: killed process ${orphan}, left running on ${folder} by worker ${pid}`);
      } catch {
        // Already gone.
      }
    }
    rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    console.warn(`e2e: removed ${folder}, left by worker ${pid}`);
  }
}
