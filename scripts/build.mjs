// `npm run build`: src/ → dist/ as plain JavaScript, one file per module (esbuild strips the types;
// `npm run typecheck` checks them). Files other than TypeScript (the migrations' .sql) are copied
// beside their modules, so code that finds them through import.meta.url finds them in dist/ too.
// `ensureBuilt()` is what `npm start` and the `gateway` CLI call: it builds only when dist/ is missing
// or older than a file under src/ (a fresh clone, a `git pull`), so a stale build never runs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');
export const DIST = path.join(ROOT, 'dist');
const STAMP = path.join(DIST, '.built');

function walk(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const isModule = (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts');

export async function build() {
  const { build: esbuild } = await import('esbuild');
  const files = walk(SRC);
  // Built aside and swapped in, so a process starting meanwhile never loads half a build.
  const tmp = `${DIST}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  await esbuild({
    entryPoints: files.filter(isModule),
    outdir: tmp,
    outbase: SRC,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  for (const f of files) {
    if (f.endsWith('.ts')) continue;
    const to = path.join(tmp, path.relative(SRC, f));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(f, to);
  }
  fs.writeFileSync(path.join(tmp, '.built'), new Date().toISOString());
  fs.rmSync(DIST, { recursive: true, force: true });
  try {
    fs.renameSync(tmp, DIST);
  } catch (err) {
    // Another process built at the same moment and swapped its dist/ in first: use that one.
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!isFresh()) throw err;
  }
}

/** True when dist/ exists and no file under src/ changed after it was built. */
export function isFresh() {
  let built;
  try {
    built = fs.statSync(STAMP).mtimeMs;
  } catch {
    return false;
  }
  const stack = [SRC];
  while (stack.length) {
    const dir = stack.pop();
    if (fs.statSync(dir).mtimeMs > built) return false; // a file added or removed
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) stack.push(p);
      else if (fs.statSync(p).mtimeMs > built) return false;
    }
  }
  return true;
}

export async function ensureBuilt() {
  if (isFresh()) return;
  process.stderr.write('building the gateway (src/ → dist/)…\n');
  await build();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await build();
  process.stderr.write(`built dist/ in ${Date.now() - started} ms\n`);
}
