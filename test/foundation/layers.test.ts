// The layer rule of docs/ARCHITECTURE.md ("Layers"), checked on the import graph of src/: every
// import (static, type-only, re-export or import() of a literal path) read by the TypeScript
// compiler's own pre-processor. An arrow against the rule fails this test with its file → file.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/**
 * The layers, from the ground up. A file may import files of its own layer and of the layers its
 * `mayImport` names — nothing else of ours (never a layer above, never test/, bench/ or scripts/).
 */
export const LAYERS: { name: string; paths: string[]; mayImport: string[] }[] = [
  { name: 'domain', paths: ['domain/'], mayImport: [] },
  { name: 'settings', paths: ['config.ts', 'config-parse.ts', 'logging.ts'], mayImport: ['domain'] },
  { name: 'db', paths: ['db/'], mayImport: ['domain', 'settings'] },
  // Three libraries side by side: they do not import each other.
  { name: 'platform', paths: ['platform/'], mayImport: ['domain', 'settings', 'db'] },
  { name: 'jobs', paths: ['jobs/'], mayImport: ['domain', 'settings', 'db'] },
  { name: 'http', paths: ['http/'], mayImport: ['domain', 'settings', 'db'] },
  { name: 'modules', paths: ['modules/'], mayImport: ['domain', 'settings', 'db', 'platform', 'jobs', 'http'] },
  { name: 'assembly', paths: ['assembly/'], mayImport: ['domain', 'settings', 'db', 'platform', 'jobs', 'http', 'modules'] },
  { name: 'entry', paths: ['main.ts', 'cli/'], mayImport: ['domain', 'settings', 'db', 'platform', 'jobs', 'http', 'modules', 'assembly'] },
];

/** The layer of a path relative to src/ (undefined: outside src/, or a file no layer names). */
export function layerOf(rel: string): string | undefined {
  if (rel.startsWith('..')) return undefined;
  return LAYERS.find((l) => l.paths.some((p) => (p.endsWith('/') ? rel.startsWith(p) : rel === p)))?.name;
}

/** The relative imports of one source text, as written (static, type-only, re-exports, import('…')). */
export function importsOf(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((name) => name.startsWith('.'));
}

/** Edges file → file, both relative to src/ (`x.js` read as `x.ts`, as NodeNext resolution does). */
export function graphOf(root: string): [string, string][] {
  const edges: [string, string][] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|mts)$/.test(e.name) && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts')) {
        for (const spec of importsOf(fs.readFileSync(p, 'utf8'))) {
          const target = path.join(path.dirname(p), spec).replace(/\.js$/, '.ts');
          edges.push([path.relative(root, p), path.relative(root, target)]);
        }
      }
    }
  };
  walk(root);
  return edges;
}

/** Every arrow against the rule, as "from → to (why)". */
export function violations(edges: [string, string][]): string[] {
  const out: string[] = [];
  for (const [from, to] of edges) {
    const a = layerOf(from);
    const b = layerOf(to);
    if (a === undefined) out.push(`${from} → ${to} (${from} is in no layer: name it in LAYERS and docs/ARCHITECTURE.md)`);
    else if (b === undefined) out.push(`${from} → ${to} (outside src/ or in no layer)`);
    else if (a !== b && !LAYERS.find((l) => l.name === a)!.mayImport.includes(b)) out.push(`${from} → ${to} (${a} may not import ${b})`);
  }
  return out;
}

describe('the layer rule (docs/ARCHITECTURE.md "Layers")', () => {
  it('holds for every import of src/', () => {
    const edges = graphOf(SRC);
    expect(edges.length).toBeGreaterThan(500); // the graph was read, not an empty walk
    expect(violations(edges)).toEqual([]);
  });

  it('the layers are named in docs/ARCHITECTURE.md in this order', () => {
    const doc = fs.readFileSync(path.resolve(SRC, '../docs/ARCHITECTURE.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Layers'));
    const at = LAYERS.map((l) => section.indexOf(`**${l.name}**`));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((x, y) => x - y)).toEqual(at);
  });

  it('reads every kind of import, and a bad arrow fails (the check can fail)', () => {
    const text = [
      "import type { A } from '../modules/a.js';",
      "import { b } from './b.js';",
      "export { c } from '../assembly/c.js';",
      "const d = () => import('../cli/d.js');",
      "import fs from 'node:fs';",
      "const s = `import { x } from '../modules/in-a-template.js'`;",
    ].join('\n');
    expect(importsOf(text)).toEqual(['../modules/a.js', './b.js', '../assembly/c.js', '../cli/d.js']);
    // A synthetic graph: one arrow of each kind that the rule forbids, and allowed ones.
    const bad = violations([
      ['domain/money.ts', 'db/database.ts'], // domain imports nothing of ours
      ['db/database.ts', 'modules/ledger/ledger-repo.ts'], // db does not import modules
      ['platform/offers.ts', 'jobs/enqueue.ts'], // the libraries do not import each other
      ['modules/deposits/offer.ts', 'assembly/context.ts'], // features never import the assembly
      ['assembly/app.ts', 'main.ts'], // nor does the assembly import the entry points
      ['http/errors.ts', '../test/helpers.ts'], // src never imports test/ or bench/
      ['stray.ts', 'domain/money.ts'], // a file in no layer
    ]);
    expect(bad).toHaveLength(7);
    expect(bad[3]).toBe('modules/deposits/offer.ts → assembly/context.ts (modules may not import assembly)');
    const good: [string, string][] = [
      ['modules/deposits/offer.ts', 'platform/offers.ts'],
      ['modules/deposits/offer.ts', 'modules/purchases/dispatch.ts'],
      ['assembly/context.ts', 'modules/deposits/deposit-service.ts'],
      ['cli/index.ts', 'assembly/app.ts'],
      ['config.ts', 'domain/games.ts'],
    ];
    expect(violations(good)).toEqual([]);
  });
});
