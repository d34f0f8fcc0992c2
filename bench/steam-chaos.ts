// npm run bench:steam-chaos — the randomized run of issue 20 (point 8) for minutes: many deposits
// and purchases through the real steam libraries against the stand-in platform, faults at random
// (test/steam/chaos.ts), ending with reconciliation. It runs test/steam/steam-chaos.test.ts (the
// seeded short version in npm test) with CHAOS_RECORDS records (default 200) and CHAOS_SEED
// (default 1), and prints the summary and a row for bench/RESULTS.md. Exit 1 when anything disagrees.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChaosSummary } from '../test/steam/chaos.js';

const records = Number(process.env.CHAOS_RECORDS ?? 200);
const seed = Number(process.env.CHAOS_SEED ?? 1);
const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'steam-chaos-')), 'summary.json');
const run = spawnSync('npx', ['vitest', 'run', 'test/steam/steam-chaos.test.ts'], {
  stdio: 'inherit',
  env: { ...process.env, CHAOS_RECORDS: String(records), CHAOS_SEED: String(seed), CHAOS_OUT: out, CHAOS_TIMEOUT_MS: String(Math.max(240_000, records * 20_000)) },
});
if (!fs.existsSync(out)) {
  console.error('steam-chaos: the run ended without a summary');
  process.exit(1);
}
const s = JSON.parse(fs.readFileSync(out, 'utf8')) as ChaosSummary;
const list = (m: Record<string, number>) => Object.entries(m).sort().map(([k, v]) => `${k} ${v}`).join(', ');
console.log(JSON.stringify(s, null, 2));
const total = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
console.log('\nRESULTS.md row:');
console.log(`| ${new Date().toISOString().slice(0, 10)} | seed ${s.seed} | ${s.records} | ${total(s.deposits)} (${list(s.deposits)}) | ${total(s.purchases)} (${list(s.purchases)}) | ${total(s.faults)} (${list(s.faults)}) | ${list(s.userActions)} | ${Math.round(s.ms / 1000)} s | ${s.discrepancies.length} | ${s.ledgerMismatches} | ${s.outcomeMismatches.length} | ${s.orphanOffers.length} |`);
process.exit(run.status === 0 && s.discrepancies.length + s.ledgerMismatches + s.outcomeMismatches.length + s.orphanOffers.length === 0 ? 0 : 1);
