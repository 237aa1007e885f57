import { describe, expect, it } from 'vitest';
import { isTestHarness, testHarnessGuard } from './test-harness-guard.ts';

describe('the build guard against the test harness', () => {
  it('names the harness, tests and test helpers, and nothing of production', () => {
    expect(isTestHarness('/repo/src/testing/test-mesh.ts')).toBe(true);
    expect(isTestHarness('/repo/src/peer/store/store.test.ts')).toBe(true);
    expect(isTestHarness('/repo/src/peer/replication/holdable-connection.test-helpers.ts?worker')).toBe(true);
    expect(isTestHarness('C:\\repo\\src\\testing\\seeded-random.ts')).toBe(true);
    expect(isTestHarness('/repo/src/peer/store/store.ts')).toBe(false);
    expect(isTestHarness('/repo/src/renderer/src/features/logs/slice.ts')).toBe(false);
  });

  it('fails the build when a module of the harness is loaded', () => {
    const plugin = testHarnessGuard();
    const load = plugin.load as (this: { error: (message: string) => never }, id: string) => unknown;
    const context = {
      error: (message: string): never => {
        throw new Error(message);
      },
    };
    expect(() => load.call(context, '/repo/src/testing/test-mesh.ts')).toThrow('the bundle would hold the test harness: /repo/src/testing/test-mesh.ts');
    expect(load.call(context, '/repo/src/peer/store/store.ts')).toBeNull();
  });
});
