// A small progress bar for long CLI operations (stderr, so --json output stays clean).
export function progressBar(label: string) {
  const tty = process.stderr.isTTY;
  let last = 0;
  const started = Date.now();
  return {
    update(done: number, total?: number) {
      const now = Date.now();
      if (now - last < 200 && done !== total) return;
      last = now;
      const rate = Math.round(done / Math.max(0.001, (now - started) / 1000));
      let line: string;
      if (total && total > 0) {
        const pct = Math.min(100, Math.floor((done / total) * 100));
        const width = 30;
        const fill = Math.round((pct / 100) * width);
        line = `${label} [${'#'.repeat(fill)}${'-'.repeat(width - fill)}] ${pct}% ${fmt(done)}/${fmt(total)} (${fmt(rate)}/s)`;
      } else {
        line = `${label} ${fmt(done)} (${fmt(rate)}/s)`;
      }
      process.stderr.write(tty ? `\r${line}` : `${line}\n`);
    },
    done() {
      if (tty) process.stderr.write('\n');
    },
  };
}

function fmt(n: number): string {
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)}M`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)}k`;
  return String(n);
}
