// What the product installs: every runtime dependency is imported by what `npm start` or the CLI
// runs (src/, bin/, scripts/build.mjs), and the tools of tests, benches and scripts stay dev-only.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(p);
    return /\.(ts|mjs|js)$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [p] : [];
  });
}

const productSource = [...filesUnder(path.join(root, 'src')), ...filesUnder(path.join(root, 'bin')), path.join(root, 'scripts/build.mjs')]
  .map((f) => fs.readFileSync(f, 'utf8'))
  .join('\n');

/** Whether the product's source names `name` as a module (import, dynamic import, require, a subpath). */
function imported(name: string): boolean {
  const q = name.replace(/[/.@-]/g, (c) => `\\${c}`);
  return new RegExp(`(from |import\\(|require\\(|resolve\\()\\s*['"\`]${q}(/[^'"\`]*)?['"\`]`).test(productSource);
}

describe('dependencies', () => {
  it('every runtime dependency is imported by the product (src/, bin/, the build script)', () => {
    const unused = Object.keys(pkg.dependencies).filter((d) => !imported(d));
    expect(unused).toEqual([]);
  });

  it('the check itself tells an import from a mention', () => {
    expect(imported('fastify')).toBe(true);
    expect(imported('vitest')).toBe(false); // tests import it; the product never does
  });

  it('test, bench and script runners are dev-only', () => {
    for (const tool of ['tsx', 'typescript', 'vitest', 'autocannon', 'playwright-core', 'nock']) {
      expect(pkg.dependencies[tool], tool).toBeUndefined();
      expect(pkg.devDependencies[tool], tool).toBeDefined();
    }
  });
});
