// The docs site at /docs: the merchant API first (home, guides, reference), the operator and
// internal operations under /docs/operator. The references are an index plus one page per tag, so
// no page is heavy (bench:docs). Every page is built once from the finished OpenAPI document, then
// served from memory, compressed (brotli or gzip). No script or style from outside the gateway;
// one small deferred script opens the menu on wide screens; the assets' URLs carry their version.
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import { esc, inline, markdown } from './markdown.js';
import { GUIDES } from './guides.js';
import { TAG_GROUPS } from '../../http/openapi-guide.js';
import { referenceIndex, referenceSections, slug, webhookPage } from './reference.js';

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

/** The merchant API's tags, and the others (hosted page, operator), in the document's order. */
const MERCHANT_TAGS = TAG_GROUPS.find((g) => g.name === 'Merchant API')!.tags;
const OTHER_TAGS = TAG_GROUPS.filter((g) => g.name !== 'Merchant API').flatMap((g) => g.tags);
const tagSlug = (tag: string) => slug(tag.replace(/^Operator: /, ''));

/** Every page of the site (the browser test and the bench cover each). */
export function docsPaths(): string[] {
  return [
    '/docs',
    ...GUIDES.map((g) => `/docs/guides/${g.slug}`),
    '/docs/reference',
    ...MERCHANT_TAGS.map((t) => `/docs/reference/${tagSlug(t)}`),
    '/docs/reference/webhooks',
    '/docs/operator',
    ...OTHER_TAGS.map((t) => `/docs/operator/${tagSlug(t)}`),
  ];
}

/** The versioned URLs of the stylesheet and the script (cached for good by the browser). */
export interface AssetUrls {
  css: string;
  js: string;
}

function layout(opts: { title: string; path: string; nav: NavGroup[]; body: string; assets: AssetUrls }): string {
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
<link rel="stylesheet" href="${esc(opts.assets.css)}">
<script src="${esc(opts.assets.js)}" defer></script>
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
export function buildDocsSite(doc: Json, assets: AssetUrls = { css: '/docs/assets/docs.css', js: '/docs/assets/docs.js' }): DocsSite {
  const merchantLead = 'Every call of <code>/api/v1/merchant</code> takes header <code>X-Api-Key</code>; answers are the envelope <code>{success, message, data}</code>. Generated from <a href="/openapi.json">/openapi.json</a>.';
  const merchant = referenceSections(doc, MERCHANT_TAGS, `<a href="/docs/reference">Merchant API reference</a>. ${merchantLead}`);
  const otherLead = "For the gateway's operators (<code>Authorization: Bearer ADMIN_TOKEN</code>) and the hosted deposit page's own calls. Merchants do not call these.";
  const other = referenceSections(doc, OTHER_TAGS, `<a href="/docs/operator">Operator API and hosted page</a>. ${otherLead}`);

  const nav: NavGroup[] = [
    { title: 'Start', links: [{ href: '/docs', text: 'Overview' }, ...GUIDES.map((g) => ({ href: `/docs/guides/${g.slug}`, text: g.title }))] },
    {
      title: 'Merchant API reference',
      links: [{ href: '/docs/reference', text: 'All operations' }, ...merchant.map((s) => ({ href: `/docs/reference/${s.slug}`, text: s.tag })), { href: '/docs/reference/webhooks', text: 'Webhooks' }],
    },
    { title: 'Operator and internal', links: [{ href: '/docs/operator', text: 'Operator API and hosted page' }] },
  ];

  const pages = new Map<string, BuiltPage>();
  const put = (path: string, title: string, body: string) => pages.set(path, compress(layout({ title, path, nav, body, assets })));

  const intro = (doc.info?.description ?? '').split('\n## ')[0];
  put(
    '/docs',
    'Merchant API',
    `<h1>Skin Trading Gateway: merchant API</h1>
<div class="prose">${markdown(intro)}</div>
<h2>Guides</h2>
<ul class="cards">${GUIDES.map((g) => `<li><a href="/docs/guides/${g.slug}">${esc(g.title)}</a><p>${inline(g.summary)}</p></li>`).join('')}</ul>
<h2>Reference</h2>
<ul class="cards">${merchant.map((s) => `<li><a href="/docs/reference/${s.slug}">${esc(s.tag)}</a><p>${s.operations.map((o) => `<code>${esc(o.method)} ${esc(o.path.replace('/api/v1/merchant', ''))}</code>`).join(' ')}</p></li>`).join('')}
<li><a href="/docs/reference/webhooks">Webhooks</a><p>The two bodies your webhook URL receives, signed twice.</p></li></ul>
<p>Operators: the <a href="/docs/operator">operator API and the hosted page's API</a> are on pages of their own.</p>`,
  );
  for (const g of GUIDES) put(`/docs/guides/${g.slug}`, g.title, `<h1>${esc(g.title)}</h1><p class="lead">${inline(g.summary)}</p><div class="prose">${markdown(g.body, { headingShift: 0 })}</div>`);
  put(
    '/docs/reference',
    'Merchant API reference',
    `<h1>Merchant API reference</h1><p class="lead">${merchantLead}</p>${referenceIndex(merchant, '/docs/reference')}
<section aria-labelledby="tag-webhooks"><h2 id="tag-webhooks"><a href="/docs/reference/webhooks">Webhooks</a></h2><p>The two bodies your webhook URL receives, signed twice.</p></section>`,
  );
  for (const s of merchant) put(`/docs/reference/${s.slug}`, `${s.tag} · Merchant API reference`, s.html);
  put('/docs/reference/webhooks', 'Webhooks · Merchant API reference', webhookPage(doc, `<a href="/docs/reference">Merchant API reference</a>.`));
  put('/docs/operator', 'Operator API and hosted page', `<h1>Operator API and hosted page</h1><p class="lead">${otherLead}</p>${referenceIndex(other, '/docs/operator')}`);
  for (const s of other) put(`/docs/operator/${s.slug}`, `${s.tag} · Operator API`, s.html);
  return { pages };
}
