import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/sequencer.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/contract/response-check-setup.ts'],
    // Generous: the suite must pass on a busy machine (tests wait for conditions; speed is the bench's).
    testTimeout: 180_000,
    hookTimeout: 300_000, // set-ups start gateways: at load 30 two of them took over 120 s
    pool: 'forks',
    // One module graph per worker, not one per file: each file imported the whole app again (224 s of
    // import on the last CI run, ≈ 112 s of wall time on 2 workers). Safe here: no file mocks modules,
    // stubs globals or env, or patches prototypes; a gateway is built per test file (its own pool,
    // prom-client Registry, timers) and stopped in afterAll; setup files still run again per file,
    // so response-check's list is emptied by each file's own afterAll.
    isolate: false,
    maxWorkers: 2,
    fileParallelism: true,
    // Long files first (test/sequencer.ts): a clean clone has no timing cache to order by.
    sequence: { sequencer: LongestFirstSequencer },
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
