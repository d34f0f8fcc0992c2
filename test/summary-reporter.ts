// Prints one plain closing line, `N passed, N failed, N skipped`, after vitest's own summary,
// so any CI that reads a run's last lines can count the tests.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that failed without a failed test (it could not load, or a beforeAll/afterAll hook
      // failed and its tests were skipped) counts as one failure: the last line must never say
      // "0 failed" for a run that failed.
      if (mod.state() === 'failed' && ![...mod.children.allTests()].some((t) => t.result().state === 'failed')) failed++;
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
