// The Markdown the docs site renders (the guides and the document's descriptions): headings,
// paragraphs, lists (with indented continuation lines), tables, fenced code, and inline code,
// bold, italics and links. Everything else is text; all text is HTML-escaped.

export const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Inline Markdown: `code`, **bold**, *italics*, [text](href). */
export function inline(text: string): string {
  const parts = text.split(/(`[^`]+`)/);
  return parts
    .map((part) => {
      if (part.startsWith('`') && part.endsWith('`') && part.length > 1) return `<code>${esc(part.slice(1, -1))}</code>`;
      return esc(part)
        .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
        .replace(/(^|[^*\w])\*([^*\s][^*]*)\*(?!\w)/g, '$1<em>$2</em>')
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, t: string, href: string) => `<a href="${href}">${t}</a>`);
    })
    .join('');
}

export interface MarkdownOptions {
  /** Added to every heading level (a section's "## " becomes h3 with shift 1). */
  headingShift?: number;
}

const slug = (s: string) => s.toLowerCase().replace(/<[^>]+>/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

export function markdown(src: string, opts: MarkdownOptions = {}): string {
  const lines = src.replace(/\r\n/g, '\n').split('\n');
  const out: string[] = [];
  let i = 0;
  const isTableRow = (l: string | undefined) => l !== undefined && /^\s*\|.*\|\s*$/.test(l);
  const cells = (l: string) => l.trim().slice(1, -1).split('|').map((c) => c.trim());
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = /^```(\w*)\s*$/.exec(line);
    if (fence) {
      const code: string[] = [];
      i++;
      while (i < lines.length && !/^```\s*$/.test(lines[i]!)) code.push(lines[i++]!);
      i++;
      const lang = fence[1] ? ` data-lang="${esc(fence[1])}"` : '';
      out.push(`<pre tabindex="0"${lang}><code>${esc(code.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,5})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(6, heading[1]!.length + (opts.headingShift ?? 0));
      const html = inline(heading[2]!);
      out.push(`<h${level} id="${slug(html)}">${html}</h${level}>`);
      i++;
      continue;
    }
    if (isTableRow(line) && /^\s*\|[\s:|-]+\|\s*$/.test(lines[i + 1] ?? '')) {
      const head = cells(line);
      i += 2;
      const rows: string[][] = [];
      while (isTableRow(lines[i])) rows.push(cells(lines[i++]!));
      out.push(
        `<div class="table" tabindex="0" role="region" aria-label="${esc(head.join(', '))}"><table><thead><tr>${head.map((h) => `<th scope="col">${inline(h)}</th>`).join('')}</tr></thead>` +
          `<tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('')}</tbody></table></div>`,
      );
      continue;
    }
    const item = /^(\s*)([-*]|\d+\.)\s+(.*)$/.exec(line);
    if (item) {
      const ordered = /\d/.test(item[2]!);
      const items: string[] = [];
      while (i < lines.length) {
        const m = /^(\s*)([-*]|\d+\.)\s+(.*)$/.exec(lines[i]!);
        if (m && m[1]!.length === item[1]!.length) {
          items.push(m[3]!);
          i++;
        } else if (items.length && /^\s+\S/.test(lines[i]!) && !/^```/.test(lines[i]!.trim())) {
          items[items.length - 1] += ` ${lines[i]!.trim()}`;
          i++;
        } else break;
      }
      const tag = ordered ? 'ol' : 'ul';
      out.push(`<${tag}>${items.map((t) => `<li>${inline(t)}</li>`).join('')}</${tag}>`);
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && !/^(#{1,5}\s|```|\s*([-*]|\d+\.)\s)/.test(lines[i]!) && !isTableRow(lines[i])) para.push(lines[i++]!.trim());
    if (para.length === 0) {
      out.push(`<p>${inline(lines[i++]!.trim())}</p>`);
      continue;
    }
    out.push(`<p>${inline(para.join(' '))}</p>`);
  }
  return out.join('\n');
}

/** The `## ` sections of a Markdown text by title (the text before the first one under ''). */
export function sections(src: string): Record<string, string> {
  const out: Record<string, string> = {};
  let title = '';
  let buf: string[] = [];
  for (const line of src.split('\n')) {
    const m = /^## (.*)$/.exec(line);
    if (m) {
      out[title] = buf.join('\n').trim();
      title = m[1]!.trim();
      buf = [];
    } else buf.push(line);
  }
  out[title] = buf.join('\n').trim();
  return out;
}
