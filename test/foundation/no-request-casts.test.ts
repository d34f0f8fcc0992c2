// Route handlers take their request types from their schemas (src/http/typed-routes.ts, the TypeBox
// type provider): an `as` cast of a request part would silently disagree with what was validated.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');
const CAST = /\b(req|request)\s*\.\s*(query|params|body)\s*\)?\s*as\b/;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : /\.ts$/.test(e.name) ? [p] : [];
  });
}

describe('no `as` casts of request parts in src/', () => {
  it('finds none (read req.body/query/params through a schema, or fieldOf/stringFields when no schema types them)', () => {
    const found: string[] = [];
    for (const file of sources(SRC)) {
      fs.readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        if (CAST.test(line) && !/^\s*(\/\/|\*)/.test(line)) found.push(`${path.relative(SRC, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('the pattern catches the forms the casts took', () => {
    for (const cast of ['req.body as X', '(req.params as { id: number }).id', 'request.query as Record<string, unknown>', 'req.body) as T']) {
      expect(CAST.test(cast), cast).toBe(true);
    }
    expect(CAST.test('req.body.amount')).toBe(false);
  });
});
