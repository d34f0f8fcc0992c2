// kill -9 of the whole gateway (Node, embedded PostgreSQL, watchdog) mid-burst, three times: no
// acknowledged write lost, nothing moved twice, timers and webhooks resume. The longer run
// (10 cycles) is `npm run crash-test`; see bench/RESULTS.md.
import { describe, expect, it } from 'vitest';
import { runCrashCycles } from './crash-run.js';

describe('crash test', () => {
  it('three kill -9 cycles mid-burst: every acknowledged write present, books balanced, every record terminal, every change delivered', async () => {
    const results = await runCrashCycles({ cycles: 3, burstMs: [500, 1500], clients: 8, catalogueSize: 400, log: (m) => console.log(m) });
    expect(results).toHaveLength(3);
    for (const r of results) {
      // The burst really wrote something of each kind before the kill.
      expect(r.acked.topUps).toBeGreaterThan(0);
      expect(r.acked.withdrawals).toBeGreaterThan(0);
      expect(r.acked.purchases).toBeGreaterThan(0);
      expect(r.acked.deposits).toBeGreaterThan(0);
      expect(r.webhookEvents).toBeGreaterThan(0);
    }
  }, 240_000);
});
