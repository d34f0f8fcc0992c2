import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/contract/response-check-setup.ts'],
    // Generous: the suite must pass on a busy machine (tests wait for conditions; speed is the bench's).
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
