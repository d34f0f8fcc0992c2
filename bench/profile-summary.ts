// Summarises a V8 CPU profile (.cpuprofile, from BENCH_CPU_PROF): self time by function and by
// package/file group, top N. `npx tsx bench/profile-summary.ts <file> [N] [busiest seconds]`: with
// the third argument, only the busiest window of that many seconds counts (the load, not startup).
import fs from 'node:fs/promises';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[] }

const [file, nArg, windowArg] = process.argv.slice(2);
const top = Number(nArg ?? 25);
const prof = JSON.parse(await fs.readFile(file, 'utf8')) as Profile;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const idleId = prof.nodes.find((n) => n.callFrame.functionName === '(idle)')?.id;
const at: number[] = [];
prof.timeDeltas.reduce((t, d, i) => (at[i] = t + d), 0);
const [from, to] = windowArg ? busiestWindow(Number(windowArg) * 1e6) : [-Infinity, Infinity];
const self = new Map<number, number>();
prof.samples.forEach((id, i) => {
  if (at[i] >= from && at[i] <= to) self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
});

/** The window of `width` µs with the least idle time (two pointers over the samples). */
function busiestWindow(width: number): [number, number] {
  let best: [number, number] = [at[0], at[0] + width];
  let bestBusy = -1;
  let busy = 0;
  let j = 0;
  for (let i = 0; i < at.length; i++) {
    if (prof.samples[i] !== idleId) busy += prof.timeDeltas[i] ?? 0;
    while (at[i] - at[j] > width) {
      if (prof.samples[j] !== idleId) busy -= prof.timeDeltas[j] ?? 0;
      j++;
    }
    if (busy > bestBusy) [bestBusy, best] = [busy, [at[j], at[i]]];
  }
  return best;
}
const total = [...self.values()].reduce((a, b) => a + b, 0);

function group(url: string): string {
  if (!url) return '(native / idle / gc)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  if (url.startsWith('node:')) return url;
  const src = /\/(src\/.*)$/.exec(url);
  return src ? src[1] : url;
}

const fns = new Map<string, number>();
const groups = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id)!;
  const name = `${n.callFrame.functionName || '(anonymous)'} ${group(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  fns.set(name, (fns.get(name) ?? 0) + t);
  const g = group(n.callFrame.url);
  groups.set(g, (groups.get(g) ?? 0) + t);
}
const show = (m: Map<string, number>) =>
  [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, v]) => `${((v / total) * 100).toFixed(1).padStart(5)} %  ${k}`).join('\n');
console.log(`total ${(total / 1e6).toFixed(1)} s sampled\n\nby package / file (self time)\n${show(groups)}\n\nby function (self time)\n${show(fns)}`);
