/**
 * Cleanup that runs however the process ends: normally (`exit`), or on SIGINT, SIGTERM or SIGHUP.
 * Tasks are synchronous (an `exit` handler cannot wait): kill a process, delete a namespace. A
 * task removed once done (the normal teardown ran) is not run again.
 */

const tasks = new Set<() => void>();
let installed = false;

function runAll(): void {
  for (const task of [...tasks]) {
    tasks.delete(task);
    try {
      task();
    } catch {
      // One failed task must not keep the others from running.
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  runAll();
  process.removeListener(signal, onSignal);
  // Nobody else handles it: die of it, as the process would have without this handler.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

/** Runs `task` when the process ends, unless the returned function removed it first. */
export function atExit(task: () => void): () => void {
  if (!installed) {
    installed = true;
    process.once('exit', runAll);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, onSignal);
  }
  tasks.add(task);
  return () => tasks.delete(task);
}
