/**
 * The dependency rule of the architecture note, checked on every import in src/:
 * `shared` imports nothing of src; `peer` imports only `shared`; `big-peer`, `cli` and `main`
 * reach `peer` only through `src/peer/index.ts`; `preload` and `renderer` take only types and
 * pure constants from `shared`; nothing but `main` and `preload` imports electron.
 * Two exceptions, each through the Big Peer's public surface only: the CLI runs the Big Peer
 * (`syncmesh big-peer`), and both the CLI and main run the app's peer with the local Big Peer
 * (`src/big-peer/app-peer.ts`: `syncmesh inspect --user-data` and the desktop app apply the same
 * settings.json rule, and the CLI may not import main). The CLI also runs Big Peer nodes on
 * PostgreSQL, through `big-peer/postgres/index.ts`: a surface of its own, so that main's bundle
 * (which takes `big-peer/index.ts`) never loads `pg`.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => (m[1] ?? m[2]) as string,
  );
}

const part = (file: string): string => relative(SRC, file).split('/')[0] as string;

describe('the dependency rule', () => {
  const violations: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = part(file);
    for (const spec of importsOf(file)) {
      const rel = relative(SRC, file);
      if (spec === 'electron' && from !== 'main' && from !== 'preload') violations.push(`${rel} imports electron`);
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      const to = relative(SRC, target).split('/')[0] as string;
      if (to === from || to.startsWith('..')) continue;
      const ok =
        (from === 'peer' && to === 'shared') ||
        (['big-peer', 'cli', 'main'].includes(from) && (to === 'shared' || relative(SRC, target) === 'peer/index.ts')) ||
        // The CLI runs the Big Peer (`syncmesh big-peer`), and the CLI and main run the app's
        // peer with the local Big Peer (big-peer/app-peer.ts), through its public surface only.
        (['cli', 'main'].includes(from) && relative(SRC, target) === 'big-peer/index.ts') ||
        (from === 'cli' && relative(SRC, target) === 'big-peer/postgres/index.ts') ||
        (['preload', 'renderer'].includes(from) && to === 'shared');
      if (!ok) violations.push(`${rel} imports ${relative(SRC, target)}`);
    }
  }

  it('holds for every import under src/', () => {
    expect(violations).toEqual([]);
  });

  it('keeps src/shared free of Node.js and the DOM', () => {
    const bad = sourceFiles(join(SRC, 'shared')).filter((f) => importsOf(f).some((s) => s.startsWith('node:')));
    expect(bad).toEqual([]);
  });
});
