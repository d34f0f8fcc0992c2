// The feature rule of docs/ARCHITECTURE.md ("Layers", modules): on the import graph of src/ read by
// layers.test.ts, (1) no two feature folders (src/modules/<feature>/) import each other, and (2) no
// file outside a feature imports that feature's SQL (`*-repo.ts`): another feature goes through its
// service. Type-only imports count: `import type` ties the two folders' code as surely as a value
// does (a row type that moves moves both), so a shared type belongs to the owner's -types.ts, to
// src/db/tables/ (the db layer) or to domain/.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { graphOf } from './layers.test.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** The feature folder of a path relative to src/ (undefined outside src/modules/). */
export function featureOf(rel: string): string | undefined {
  return /^modules\/([^/]+)\//.exec(rel)?.[1];
}

/**
 * Imports of another feature's repo that stand today, each to be replaced by a call of that
 * feature's service. The list may only shrink: an entry that no longer exists fails the test too,
 * so that a fixed import is struck off here in the same commit.
 */
export const KNOWN_REPO_IMPORTS: string[] = [
  'modules/mail/letters.ts → modules/accounts/accounts-repo.ts',
];

/** Every pair of feature folders that import each other, as "a ↔ b: file → file, …" (a < b). */
export function ties(edges: [string, string][]): string[] {
  const between = new Map<string, string[]>();
  for (const [from, to] of edges) {
    const a = featureOf(from);
    const b = featureOf(to);
    if (a === undefined || b === undefined || a === b) continue;
    const key = `${a}→${b}`;
    between.set(key, [...(between.get(key) ?? []), `${from} → ${to}`]);
  }
  const out: string[] = [];
  for (const [key, arrows] of between) {
    const [a, b] = key.split('→');
    const back = between.get(`${b}→${a}`);
    if (back && a! < b!) out.push(`${a} ↔ ${b}: ${[...new Set([...arrows, ...back])].join(', ')}`);
  }
  return out.sort();
}

/** Every import of another feature's repo, as "file → file". */
export function repoReaches(edges: [string, string][]): string[] {
  const out = edges
    .filter(([from, to]) => featureOf(to) !== undefined && /-repo\.ts$/.test(to) && featureOf(from) !== featureOf(to))
    .map(([from, to]) => `${from} → ${to}`);
  return [...new Set(out)].sort();
}

describe('the feature rule (docs/ARCHITECTURE.md "Layers")', () => {
  const edges = graphOf(SRC);

  it('no two feature folders import each other', () => {
    expect(ties(edges)).toEqual([]);
  });

  it("no feature imports another feature's repo (the known ones only shrink)", () => {
    expect(repoReaches(edges)).toEqual([...KNOWN_REPO_IMPORTS].sort());
  });

  it('the checks can fail', () => {
    const synthetic: [string, string][] = [
      ['modules/a/a-service.ts', 'modules/b/b-service.ts'],
      ['modules/b/b-routes.ts', 'modules/a/a-types.ts'], // type-only counts: a tie
      ['modules/c/c-service.ts', 'modules/a/a-repo.ts'], // another feature's repo
      ['modules/a/a-service.ts', 'modules/a/a-repo.ts'], // its own repo: fine
      ['assembly/context.ts', 'modules/a/a-repo.ts'], // outside any feature: also not
      ['modules/c/c-service.ts', 'modules/b/b-service.ts'], // one way: fine
    ];
    expect(ties(synthetic)).toEqual(['a ↔ b: modules/a/a-service.ts → modules/b/b-service.ts, modules/b/b-routes.ts → modules/a/a-types.ts']);
    expect(repoReaches(synthetic)).toEqual(['assembly/context.ts → modules/a/a-repo.ts', 'modules/c/c-service.ts → modules/a/a-repo.ts']);
  });
});
