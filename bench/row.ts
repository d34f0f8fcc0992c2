/** One line of the bench's table: a scenario or a baseline, and its ratio to the baseline it is measured against. */
export interface Row {
  name: string;
  connections?: number;
  rps?: number;
  p50?: number;
  p99?: number;
  bad?: number;
  baseline?: string;
  ratio?: number;
  target?: string;
}

/** The rows as one markdown table (bench/RESULTS.md's format). */
export function table(rows: Row[]): string {
  const head = ['scenario', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx/err', 'baseline', 'ratio', 'target'];
  const lines = rows.map((r) => [
    r.name,
    String(r.connections ?? ''),
    r.rps === undefined ? '' : Math.round(r.rps).toLocaleString('en-US'),
    r.p50 === undefined ? '' : String(r.p50),
    r.p99 === undefined ? '' : String(r.p99),
    r.bad === undefined ? '' : String(r.bad),
    r.baseline ?? '',
    r.ratio === undefined ? '' : r.ratio.toFixed(2),
    r.target ?? '',
  ]);
  const md = [head, head.map(() => '---'), ...lines].map((l) => `| ${l.join(' | ')} |`);
  return md.join('\n');
}
