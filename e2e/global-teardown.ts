/**
 * After the browser tests: no temporary folder of theirs may stay behind. Each test file removes
 * its own (e2e/processes.ts); a folder whose worker process is gone and that is still there (a
 * worker killed mid-run) is removed here, and said.
 */
import { readdirSync, rmSync } from 'node:fs';
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

export default function globalTeardown(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(FOLDER_PREFIX)) continue;
    const pid = Number(/-(\d+)-[^-]+$/.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || alive(pid)) continue;
    rmSync(join(tmpdir(), name), { recursive: true, force: true, maxRetries: 5 });
    console.warn(`e2e: removed ${join(tmpdir(), name)}, left by worker ${pid}`);
  }
}
