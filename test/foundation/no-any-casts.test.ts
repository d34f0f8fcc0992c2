// No `as any` in src/: a cast to any switches the type checker off for everything the value touches.
// A library's undeclared or private members are reached in one adapter file that says why
// (src/platform/steam/library-internals.ts; steam-session's in bot-route.ts), so a private member
// (a name starting with `_`) is read or named nowhere else. Read with the TypeScript parser: a
// comment or a string that merely says "as any" is no cast.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');
const ADAPTERS = new Set(['platform/steam/library-internals.ts', 'platform/steam/bot-route.ts']);
/** Our own underscore names (not a library's): the sign-in forms' CSRF field. */
const OWN_UNDERSCORE_NAMES = new Set(['_csrf']);

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : /\.ts$/.test(e.name) ? [p] : [];
  });
}

interface Finding { anyCasts: string[]; privateMembers: string[] }

function inspect(fileName: string, text: string): Finding {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: Finding = { anyCasts: [], privateMembers: [] };
  const where = (n: ts.Node) => `${fileName}:${file.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${n.getText().slice(0, 120)}`;
  const isPrivate = (name: string) => /^_[A-Za-z]/.test(name) && !OWN_UNDERSCORE_NAMES.has(name);
  const visit = (n: ts.Node): void => {
    if ((ts.isAsExpression(n) || ts.isTypeAssertionExpression(n)) && n.type.kind === ts.SyntaxKind.AnyKeyword) out.anyCasts.push(where(n));
    if (ts.isPropertyAccessExpression(n) && isPrivate(n.name.text)) out.privateMembers.push(where(n));
    if (ts.isStringLiteral(n) && isPrivate(n.text)) out.privateMembers.push(where(n));
    if (ts.isPropertySignature(n) && ts.isIdentifier(n.name) && isPrivate(n.name.text)) out.privateMembers.push(where(n));
    ts.forEachChild(n, visit);
  };
  visit(file);
  return out;
}

describe('no `as any` in src/, library internals only in their adapter', () => {
  const files = sources(SRC).map((f) => ({ rel: path.relative(SRC, f).split(path.sep).join('/'), text: fs.readFileSync(f, 'utf8') }));

  it('finds no `as any` (nor `<any>`) cast anywhere in src/', () => {
    expect(files.flatMap((f) => inspect(f.rel, f.text).anyCasts)).toEqual([]);
  });

  it('reaches private library members (`_name`) only in the adapter files', () => {
    const outside = files.filter((f) => !ADAPTERS.has(f.rel)).flatMap((f) => inspect(f.rel, f.text).privateMembers);
    expect(outside).toEqual([]);
    // The adapters exist and are where the internals are: the allowance is not for nothing.
    for (const adapter of ADAPTERS) expect(inspect(adapter, fs.readFileSync(path.join(SRC, adapter), 'utf8')).privateMembers.length, adapter).toBeGreaterThan(0);
  });

  it('catches the forms a cast or an internal takes, and not a comment or a string saying so', () => {
    const found = inspect('x.ts', [
      'const a = (x as any).request;',
      'const b = <any>y;',
      'const c = (z as any as Foo);',
      'community._jar.getCookieString("u");',
      "Object.defineProperty(m, '_pending', {});",
      'const d = s as { _webClient?: unknown };',
      '// as any other value; c._jar',
      "const e = 'treated as any refusal';",
      'const f = form._csrf;',
      'const g = h as unknown as Narrow;',
    ].join('\n'));
    expect(found.anyCasts.map((s) => s.split(':')[1])).toEqual(['1', '2', '3']);
    expect(found.privateMembers.map((s) => s.split(':')[1])).toEqual(['4', '5', '6']);
  });
});
