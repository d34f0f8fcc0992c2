// Longest files first, so no long file starts near the end while the other worker sits idle.
// vitest's own order does this from its results cache (node_modules/.vite), which a clean clone
// (CI) does not have: there the order was the glob's, and the crash test and the 500 000-listing
// test started last (≈ 150 s of one worker alone at the end of a 904 s run). The seconds below
// are one quiet 2-worker run (2026-11-26); only the order matters, so they need no upkeep beyond
// adding a new file that takes more than ~15 s. Files not listed follow in vitest's own order.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const SLOW_FILES: Record<string, number> = {
  'test/a11y/pages.browser.test.ts': 152,
  'test/contract/docs.browser.test.ts': 122,
  'test/catalogue/stream-500k.test.ts': 83,
  'test/trust/crash.test.ts': 69,
  'test/foundation/graceful-stop.test.ts': 41,
  'test/foundation/cli.test.ts': 39,
  'test/trust/restart.test.ts': 38,
  'test/hosted/hosted-page.browser.test.ts': 37,
  'test/dashboard/dashboard.browser.test.ts': 30,
  'test/trust/fuzz.test.ts': 27,
  'test/webhooks/delivery.test.ts': 20,
  'test/webhooks/dispatcher.test.ts': 19,
  'test/dashboard/sign-in-limits.test.ts': 19,
  'test/webhooks/reliability.test.ts': 18,
  'test/steam/steam-faults.test.ts': 17,
  'test/steam/steam-chaos.test.ts': 17,
  'test/foundation/access-log.test.ts': 17,
  'test/trust/two-instances.test.ts': 16,
  'test/foundation/start-stop.test.ts': 15,
  // Not in the quiet run's list; a full run at load ~16 (2026-11-26) took 95, 71 and 64 s, divided
  // by that run's median ratio to the quiet figures above (≈ 3.8).
  'test/dashboard/accounts.test.ts': 25,
  'test/foundation/cli-finds-gateway.test.ts': 19,
  'test/deposits/transitions.test.ts': 17,
};

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const seconds = (f: TestSpecification) => SLOW_FILES[f.moduleId.slice(f.project.config.root.length + 1)] ?? 0;
    // Array.prototype.sort is stable: unlisted files keep vitest's order.
    return [...base].sort((a, b) => seconds(b) - seconds(a));
  }
}
