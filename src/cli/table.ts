// Lists as a person reads them: one aligned column per field, no index column, nested values as
// compact JSON (never `[Object]`), long cells cut with an ellipsis. `--json` prints the full rows.
const MAX_CELL = 48;

function cell(v: unknown): string {
  const text = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL - 1)}…` : flat;
}

export function formatTable(rows: readonly Record<string, unknown>[]): string {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cells = rows.map((r) => cols.map((c) => cell(r[c])));
  const widths = cols.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (parts: string[]) => parts.map((p, i) => p.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(cols), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}
