/**
 * A build plugin that fails the desktop app's build when any module of the test harness
 * (`src/testing/`) or any test file would be bundled: the dependency rule keeps production code
 * from importing them (src/dependency-rule.test.ts), and this checks the bundles themselves.
 */
import type { Plugin } from 'vite';

/** Is this module id (a path, perhaps with a query) a test or a file of the harness? */
export function isTestHarness(id: string): boolean {
  const path = id.split('?')[0]?.replaceAll('\\', '/') ?? '';
  return path.includes('/src/testing/') || /\.test(?:-helpers)?\.tsx?$/.test(path);
}

export function testHarnessGuard(): Plugin {
  return {
    name: 'syncmesh:test-harness-guard',
    load(id) {
      if (isTestHarness(id)) this.error(`the bundle would hold the test harness: ${id} (production code may not import src/testing/ or tests)`);
      return null;
    },
  };
}
