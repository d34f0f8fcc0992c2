// The docs site at /docs: the merchant API first (home, guides, reference), the operator and
// internal operations on a page of their own. Every page is built once from the finished OpenAPI
// document, then served from memory, compressed (brotli or gzip). No script or style from
// outside the gateway; one small script opens the menu on wide screens.
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import { esc, inline, markdown } from './markdown.js';
import { GUIDES } from './guides.js';
import { referenceSections, webhookSection, type ReferenceSection } from './reference.js';

type Json = any;

export interface BuiltPage {
  etag: string;
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

/** A page or asset with its ETag and its brotli and gzip forms. */
export function compress(content: string | Buffer): BuiltPage {
  const identity = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return {
    etag: `"${crypto.createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
    identity,
    gzip: zlib.gzipSync(identity, { level: 9 }),
    br: zlib.brotliCompressSync(identity, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
  };
}

interface NavGroup {
  title: string;
  links: { href: string; text: string }[];
}

function layout(opts: { title: string; path: string; nav: NavGroup[]; body: string }): string {
  const nav = opts.nav
    .map(
      (g) =>
        `<h2 class="nav-group">${esc(g.title)}</h2><ul>${g.links
          .map((l) => `<li><a href="${esc(l.href)}"${l.href === opts.path ? ' aria-current="page"' : ''}>${esc(l.text)}</a></li>`)
          .join('')}</ul>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(opts.title)} · Skin Trading Gateway docs</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/assets/docs.css">
<script src="/docs/assets/docs.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/docs">Skin Trading Gateway <span>API docs</span></a>
<a class="download" href="/openapi.json">openapi.json</a>
</header>
<div class="layout">
<nav class="side" aria-label="Documentation">
<details class="menu" id="menu"><summary>Menu</summary>${nav}</details>
</nav>
<main id="main" tabindex="-1">
${opts.body}
</main>
</div>
</body>
</html>`;
}

export interface DocsSite {
  pages: Map<string, BuiltPage>;
}

/** Every page of the site by its path. */
export function buildDocsSite(doc: Json): DocsSite {
  const groups: { name: string; tags: string[] }[] = doc['x-tagGroups'] ?? [];
  const merchantTags = groups.find((g) => g.name === 'Merchant API')?.tags ?? [];
  const otherTags = groups.filter((g) => g.name !== 'Merchant API' && g.name !== 'Webhooks').flatMap((g) => g.tags);
  const merchant = referenceSections(doc, merchantTags);
  const other = referenceSections(doc, otherTags);

  const nav: NavGroup[] = [
    { title: 'Start', links: [{ href: '/docs', text: 'Overview' }, ...GUIDES.map((g) => ({ href: `/docs/guides/${g.slug}`, text: g.title }))] },
    { title: 'Merchant API reference', links: [...merchant.map((s) => ({ href: `/docs/reference#${s.id}`, text: s.tag })), { href: '/docs/reference#tag-webhooks', text: 'Webhooks' }] },
    { title: 'Operator and internal', links: [{ href: '/docs/operator', text: 'Operator API and hosted page' }] },
  ];

  const pages = new Map<string, BuiltPage>();
  const put = (path: string, title: string, body: string) => pages.set(path, compress(layout({ title, path, nav, body })));

  const intro = (doc.info?.description ?? '').split('\n## ')[0];
  put(
    '/docs',
    'Merchant API',
    `<h1>Skin Trading Gateway: merchant API</h1>
<div class="prose">${markdown(intro)}</div>
<h2>Guides</h2>
<ul class="cards">${GUIDES.map((g) => `<li><a href="/docs/guides/${g.slug}">${esc(g.title)}</a><p>${inline(g.summary)}</p></li>`).join('')}</ul>
<h2>Reference</h2>
<ul class="cards">${merchant.map((s) => `<li><a href="/docs/reference#${s.id}">${esc(s.tag)}</a><p>${s.operations.map((o) => `<code>${esc(o.method)} ${esc(o.path.replace('/api/v1/merchant', ''))}</code>`).join(' ')}</p></li>`).join('')}
<li><a href="/docs/reference#tag-webhooks">Webhooks</a><p>The two bodies your webhook URL receives, signed twice.</p></li></ul>
<p>Operators: the <a href="/docs/operator">operator API and the hosted page's API</a> are on their own page.</p>`,
  );
  for (const g of GUIDES) put(`/docs/guides/${g.slug}`, g.title, `<h1>${esc(g.title)}</h1><p class="lead">${inline(g.summary)}</p><div class="prose">${markdown(g.body, { headingShift: 0 })}</div>`);
  const toc = (sections: ReferenceSection[]) =>
    `<nav aria-label="On this page" class="toc"><ul>${sections.map((s) => `<li><a href="#${s.id}">${esc(s.tag)}</a></li>`).join('')}</ul></nav>`;
  put(
    '/docs/reference',
    'Merchant API reference',
    `<h1>Merchant API reference</h1><p class="lead">Every call of <code>/api/v1/merchant</code> with header <code>X-Api-Key</code>; answers are the envelope <code>{success, message, data}</code>. Generated from <a href="/openapi.json">/openapi.json</a>.</p>${toc(merchant)}${merchant.map((s) => s.html).join('\n')}${webhookSection(doc)}`,
  );
  put(
    '/docs/operator',
    'Operator API and hosted page',
    `<h1>Operator API and hosted page</h1><p class="lead">For the gateway's operators (<code>Authorization: Bearer ADMIN_TOKEN</code>) and the hosted deposit page's own calls. Merchants do not call these.</p>${toc(other)}${other.map((s) => s.html).join('\n')}`,
  );
  return { pages };
}
