// The long crash test: `npm run crash-test` (CYCLES=10 by default). kill -9 of the whole gateway
// mid-burst, restart, verify (see test/trust/crash-run.ts), cycle after cycle; prints a summary
// for bench/RESULTS.md.
import { runCrashCycles } from '../test/trust/crash-run.js';

const cycles = Number(process.env.CYCLES ?? 10);
const clients = Number(process.env.CLIENTS ?? 24);
const started = Date.now();
const results = await runCrashCycles({
  cycles,
  clients,
  burstMs: [3000, 6000],
  catalogueSize: 3000,
  log: (m) => console.log(m),
});
const sum = (f: (r: (typeof results)[number]) => number) => results.reduce((a, r) => a + f(r), 0);
const max = (f: (r: (typeof results)[number]) => number) => Math.max(...results.map(f));
console.log(`\n${cycles} kill -9 cycles, ${clients} clients, ${Math.round((Date.now() - started) / 1000)} s in all: every check passed`);
console.log(`| acknowledged before the kills | top-ups ${sum((r) => r.acked.topUps)} · withdrawals ${sum((r) => r.acked.withdrawals)} · purchases ${sum((r) => r.acked.purchases)} · deposits ${sum((r) => r.acked.deposits)} · sandbox accepts/releases ${sum((r) => r.acked.sandboxActions)} |`);
console.log(`| webhook events delivered (cumulative, last cycle) | ${results.at(-1)?.webhookEvents} |`);
console.log(`| restart after kill -9 (ready) | max ${max((r) => r.restartMs)} ms, mean ${Math.round(sum((r) => r.restartMs) / cycles)} ms |`);
console.log(`| settle (all terminal + all webhooks delivered) | max ${max((r) => r.settleMs)} ms, mean ${Math.round(sum((r) => r.settleMs) / cycles)} ms |`);
