// Comments in src/ say what the code does and why; which change, issue or bench stop brought it
// belongs in git and docs/decisions/. A comment citing an issue, a stop, a task or a migration by
// number tells a reader where to dig instead of telling them the reason, and goes stale when the
// history does. This test reads every comment of src/**/*.ts (found by the TypeScript scanner, so
// strings and code are never taken for comments) and of src/db/functions/*.sql, and fails on a
// citation. A migration is named by what it made (the table, column or index), a decision by its
// path under docs/decisions/. src/db/migrations/*.sql are not read: migrations on main never change.
import fs from 'node:fs';
import { STATUS_CODES } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** Comments allowed to keep a citation, by `path:line-text`, each with the reason (none today). */
const EXCEPTIONS: Record<string, string> = {};

/** What a citation of history looks like; each answers the part of the comment it matched. */
const CITATIONS: RegExp[] = [
  /\b(?:issue|stop|task)s? ?#?[0-9]+/i, // "issue 25", "stop 40", "task #3"
  /\bsince stop\b/i,
  /\bmigrations? #?[0-9]{3}\b/i, // "migration 047", "migration 025's index"
];
/** A three-digit number in brackets: a migration's number unless it is an HTTP status ("(304)"). */
const BRACKETED = /\(([0-9]{3})\)/g;

export function citationIn(comment: string): string | undefined {
  for (const re of CITATIONS) {
    const m = re.exec(comment);
    if (m) return m[0];
  }
  for (const m of comment.matchAll(BRACKETED)) if (!STATUS_CODES[Number(m[1])]) return m[0];
  return undefined;
}

/** Every comment of a TypeScript source with its line, via the compiler's own trivia ranges. */
export function tsComments(text: string): { line: number; text: string }[] {
  const sf = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const seen = new Map<number, { line: number; text: string }>();
  const add = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (!seen.has(r.pos)) seen.set(r.pos, { line: sf.getLineAndCharacterOfPosition(r.pos).line + 1, text: text.slice(r.pos, r.end) });
    }
  };
  const visit = (node: ts.Node) => {
    add(ts.getLeadingCommentRanges(text, node.pos));
    add(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(sf)) if (child.kind < ts.SyntaxKind.FirstJSDocNode || child.kind > ts.SyntaxKind.LastJSDocNode) visit(child);
  };
  visit(sf);
  return [...seen.values()].sort((a, b) => a.line - b.line);
}

/** Every comment of a PL/pgSQL source (`--` to the line's end, `/* … *\/`), strings and dollar quotes skipped only as far as comments go. */
export function sqlComments(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let i = 0;
  const lineAt = (pos: number) => text.slice(0, pos).split('\n').length;
  while (i < text.length) {
    if (text[i] === "'") {
      const end = text.indexOf("'", i + 1);
      i = end < 0 ? text.length : end + 1;
    } else if (text.startsWith('--', i)) {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      out.push({ line: lineAt(i), text: text.slice(i, stop) });
      i = stop;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out.push({ line: lineAt(i), text: text.slice(i, stop) });
      i = stop;
    } else i++;
  }
  return out;
}

function files(dir: string, ext: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p, ext) : e.name.endsWith(ext) ? [p] : [];
  });
}

const excepted = new Set<string>();

/** Each citation left in a comment of src/, as `path:line: match — comment line`. */
function citations(): string[] {
  const found: string[] = [];
  const sources = [
    ...files(SRC, '.ts').map((f) => ({ f, comments: tsComments(fs.readFileSync(f, 'utf8')) })),
    ...files(path.join(SRC, 'db/functions'), '.sql').map((f) => ({ f, comments: sqlComments(fs.readFileSync(f, 'utf8')) })),
  ];
  for (const { f, comments } of sources) {
    const rel = path.relative(SRC, f);
    for (const c of comments) {
      c.text.split('\n').forEach((lineText, k) => {
        const hit = citationIn(lineText);
        if (!hit) return;
        const key = `${rel}:${lineText.trim()}`;
        if (key in EXCEPTIONS) excepted.add(key);
        else found.push(`${rel}:${c.line + k}: ${hit} — ${lineText.trim()}`);
      });
    }
  }
  return found;
}

describe('comments in src/ say what and why, not which issue, stop or migration', () => {
  it('no comment cites an issue, stop, task or migration by number', () => {
    expect(citations()).toEqual([]);
    // An exception whose comment is gone (or rewritten) leaves the list.
    expect(Object.keys(EXCEPTIONS).filter((k) => !excepted.has(k))).toEqual([]);
  });

  it('the pattern catches the forms the citations took, and leaves HTTP statuses and paths alone', () => {
    for (const c of ['// Retention (issue 26): one run', ' * ≈ 330 µs a batch, bench/RESULTS.md stop 40)', '/** fail_cause, migration 047 */',
      '// by an index (057). A', "// Read merchant by merchant (migration 025's index)", '-- ANALYZE (… bench/x.ts: stop 38)', '// issue #11', '// since stop 12']) {
      expect(citationIn(c), c).toBeDefined();
    }
    for (const c of ['// a page request is answered (304)', '// the caller can answer (503)', '// docs/decisions/020-records-follow-the-platform.md', '// 300 items']) {
      expect(citationIn(c), c).toBeUndefined();
    }
  });

  it('comments are told from code and strings', () => {
    const text = "const a = '// issue 1'; // real (057)\n/** doc: stop 40 */\nfunction f() { return `x ${a /* inner */} // not`; }\nconst r = /\\/\\/ re/;\n// end\n";
    expect(tsComments(text).map((c) => c.text)).toEqual(['// real (057)', '/** doc: stop 40 */', '/* inner */', '// end']);
    expect(sqlComments("select '-- not' -- yes\n/* block */ x").map((c) => c.text)).toEqual(['-- yes', '/* block */']);
  });
});
