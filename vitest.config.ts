import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'scripts/**/*.test.ts', 'bench/**/*.test.ts'],
    exclude: ['node_modules', 'out', 'e2e'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The PostgreSQL server of the run (SYNCMESH_TEST_POSTGRES, or a throwaway cluster it starts).
    globalSetup: ['./scripts/vitest-postgres-setup.ts'],
    reporters: ['default', './scripts/plain-summary-reporter.ts'],
  },
});
