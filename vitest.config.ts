import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'scripts/**/*.test.ts'],
    exclude: ['node_modules', 'out', 'e2e'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', './scripts/plain-summary-reporter.ts'],
  },
});
