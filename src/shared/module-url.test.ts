import { describe, expect, it } from 'vitest';
import { siblingModule } from './module-url.ts';

describe('a worker script beside the module that starts it', () => {
  it('is the .ts file from the sources and the .js file from the compiled package', () => {
    const fromSources = 'file:///repo/src/peer/query/query-threads.ts';
    const fromPackage = 'file:///app/node_modules/syncmesh/lib/peer/query/query-threads.js';
    expect(siblingModule(new URL('./query-thread.ts', fromSources), fromSources).href).toBe('file:///repo/src/peer/query/query-thread.ts');
    expect(siblingModule(new URL('./query-thread.ts', fromPackage), fromPackage).href).toBe('file:///app/node_modules/syncmesh/lib/peer/query/query-thread.js');
  });

  it('is left as named when the starting module has no script extension (a bundle served oddly)', () => {
    expect(siblingModule(new URL('./x.ts', 'file:///a/b/index'), 'file:///a/b/index').href).toBe('file:///a/b/x.ts');
  });
});
