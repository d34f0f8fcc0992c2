// `npx tsx bench/start-to-ready.ts [runs]`: start to ready (/readyz 200) of `npm start` on a first
// start (empty DATA_DIR) and a restart on it, and the idle RSS, for the compiled build
// (bin/start.mjs → dist/) against src/main.ts under tsx (how `npm start` ran before the build step),
// the two in turn in the same run. Prints medians, min and max.
import { execFileSync } from 'node:child_process';
import { startToReady, type Runner } from './gateway-process.js';

const runs = Number(process.argv[2] ?? 5);
execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' }); // a build is not part of a start
const results: Record<Runner, { firstMs: number; againMs: number; idleRssMb: number }[]> = { compiled: [], tsx: [] };
for (let i = 0; i < runs; i++) {
  for (const runner of ['tsx', 'compiled'] as const) results[runner].push(await startToReady(process.cwd(), 'bench-admin-token-0123456789abcdef', runner));
}
const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[Math.floor(s.length / 2)]} (${s[0]}–${s[s.length - 1]})`;
};
console.log(`runs: ${runs} each, alternating\n`);
console.log('| runner | first start, ms | restart, ms | idle RSS, MB |');
console.log('|---|---|---|---|');
for (const runner of ['tsx', 'compiled'] as const) {
  const r = results[runner];
  console.log(`| ${runner} | ${stat(r.map((x) => x.firstMs))} | ${stat(r.map((x) => x.againMs))} | ${stat(r.map((x) => x.idleRssMb))} |`);
}
