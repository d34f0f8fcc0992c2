// The API reference pages, rendered from the finished OpenAPI document (/openapi.json): one page
// per tag (a whole API on one page was ≈ 6 600 elements and the slowest page to load), per
// operation its method and path, the prose, parameters, request and answer fields (flattened into
// one table each), the examples and the error answers.
import { esc, inline, markdown } from './markdown.js';

type Json = any;

export const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

function resolve(doc: Json, s: Json): Json {
  let out = s;
  for (let i = 0; out && out.$ref && i < 10; i++) out = out.$ref.split('/').slice(1).reduce((o: Json, k: string) => o?.[k], doc);
  return out ?? {};
}

function typeOf(doc: Json, s: Json): string {
  const r = resolve(doc, s);
  const variants = r.anyOf ?? r.oneOf;
  if (variants) return variants.map((v: Json) => typeOf(doc, v)).join(' | ');
  const types = Array.isArray(r.type) ? r.type : r.type ? [r.type] : [];
  let t = types.map((x: string) => (x === 'array' ? `${typeOf(doc, r.items ?? {})}[]` : x)).join(' | ') || (r.title ?? 'any');
  if (r.format && r.format !== 'date-time') t += ` (${r.format})`;
  if (r.format === 'date-time') t += ' (ISO 8601)';
  return t;
}

interface Row {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

/** The fields of a schema, nested ones as `a.b` and `items[].c`, at most `depth` levels down. */
function fields(doc: Json, schema: Json, prefix = '', depth = 3, seen = new Set<Json>()): Row[] {
  const s = resolve(doc, schema);
  if (seen.has(s) || depth < 0) return [];
  seen = new Set(seen).add(s);
  const variants = s.anyOf ?? s.oneOf;
  if (variants) {
    const rows = variants.flatMap((v: Json) => fields(doc, v, prefix, depth, seen));
    return rows.filter((r: Row, i: number) => rows.findIndex((x: Row) => x.name === r.name) === i);
  }
  if (s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array'))) return fields(doc, s.items ?? {}, `${prefix}[]`, depth, seen);
  const out: Row[] = [];
  const required = new Set<string>(s.required ?? []);
  for (const [name, prop] of Object.entries<Json>(s.properties ?? {})) {
    const p = resolve(doc, prop);
    const full = prefix ? `${prefix}.${name}` : name;
    const enumText = p.enum ? ` One of: ${p.enum.map((v: unknown) => `\`${String(v)}\``).join(', ')}.` : '';
    const limits = [p.minimum !== undefined && `min ${p.minimum}`, p.maximum !== undefined && `max ${p.maximum}`, p.maxLength !== undefined && `≤ ${p.maxLength} chars`].filter(Boolean).join(', ');
    out.push({ name: full, type: typeOf(doc, p), required: required.has(name), description: `${p.description ?? ''}${enumText}${limits ? ` (${limits})` : ''}`.trim() });
    out.push(...fields(doc, p, full, depth - 1, seen));
  }
  return out;
}

function fieldTable(label: string, rows: Row[]): string {
  if (rows.length === 0) return '';
  return (
    `<div class="table" tabindex="0" role="region" aria-label="${esc(label)}"><table><caption>${esc(label)}</caption>` +
    '<thead><tr><th scope="col">field</th><th scope="col">type</th><th scope="col">description</th></tr></thead><tbody>' +
    // three cells, the name a row header without a <code> inside: a row is 4 elements (was 6), for
    // the browser and for axe's per-element checks alike
    rows.map((r) => `<tr><th scope="row">${esc(r.name)}</th><td>${esc(r.type)}${r.required ? ', required' : ''}</td><td>${inline(r.description)}</td></tr>`).join('') +
    '</tbody></table></div>'
  );
}

const json = (label: string, v: unknown) => `<figure><figcaption>${esc(label)}</figcaption><pre tabindex="0"><code>${esc(JSON.stringify(v, null, 2))}</code></pre></figure>`;

export interface Operation {
  id: string;
  method: string;
  path: string;
  tag: string;
  summary: string;
  op: Json;
}

export function operationsOf(doc: Json): Operation[] {
  return Object.entries<Json>(doc.paths).flatMap(([path, ops]) =>
    Object.entries<Json>(ops).map(([method, op]) => ({ id: op.operationId, method: method.toUpperCase(), path, tag: op.tags?.[0] ?? '', summary: op.summary ?? '', op })),
  );
}

function renderOperation(doc: Json, o: Operation): string {
  const { op } = o;
  const params = (op.parameters ?? []).map((p: Json) => ({
    name: `${p.name} (${p.in})`,
    type: typeOf(doc, p.schema ?? {}),
    required: !!p.required,
    description: `${p.description ?? resolve(doc, p.schema ?? {}).description ?? ''}${p.schema?.enum ? ` One of: ${p.schema.enum.map((v: unknown) => `\`${String(v)}\``).join(', ')}.` : ''}`,
  }));
  const body = op.requestBody?.content?.['application/json'];
  const okStatus = Object.keys(op.responses ?? {}).find((s) => /^2/.test(s));
  const ok = okStatus ? op.responses[okStatus]?.content?.['application/json'] : undefined;
  const data = ok?.schema?.properties?.data;
  const errors = Object.entries<Json>(op.responses ?? {})
    .filter(([s]) => !/^2/.test(s))
    .map(([s, r]) => `<li><strong>${esc(s)}</strong> ${inline(resolve(doc, r).description ?? '')}</li>`)
    .join('');
  return [
    `<article class="op" id="${esc(o.id)}" aria-labelledby="${esc(o.id)}-title">`,
    `<h2 id="${esc(o.id)}-title"><span class="method m-${o.method.toLowerCase()}">${o.method}</span> <code class="path">${esc(o.path)}</code></h2>`,
    `<p class="summary">${inline(o.summary)}</p>`,
    op.description && op.description !== o.summary ? `<div class="prose">${markdown(op.description, { headingShift: 2 })}</div>` : '',
    fieldTable('Parameters', params),
    body ? fieldTable('Request body', fields(doc, body.schema)) : '',
    body?.examples?.example ? json('Request example', body.examples.example.value) : '',
    data ? fieldTable(`Answer data (HTTP ${okStatus})`, fields(doc, data, 'data')) : '',
    ok?.example !== undefined ? json(`Answer example (HTTP ${okStatus})`, ok.example) : '',
    errors ? `<h3>Other answers</h3><ul class="errors">${errors}</ul>` : '',
    '</article>',
  ].join('\n');
}

export interface ReferenceSection {
  tag: string;
  /** The tag's slug: its page is /docs/reference/<slug> (merchant) or /docs/operator/<slug>. */
  slug: string;
  description: string;
  /** The body of the tag's own page. */
  html: string;
  operations: Operation[];
}

/** The sections of the given tags, in that order, each with its operations and its page's body. */
export function referenceSections(doc: Json, tags: string[], lead: string): ReferenceSection[] {
  const ops = operationsOf(doc);
  return tags.map((tag) => {
    const mine = ops.filter((o) => o.tag === tag);
    const description = (doc.tags ?? []).find((t: Json) => t.name === tag)?.description ?? '';
    const html = `<h1>${esc(tag)}</h1><p class="lead">${lead}</p><p>${inline(description)}</p>\n${mine.map((o) => renderOperation(doc, o)).join('\n')}`;
    return { tag, slug: slug(tag.replace(/^Operator: /, '')), description, html, operations: mine };
  });
}

/** The index of sections: per tag a link to its page and one line per operation (its id kept as an anchor). */
export function referenceIndex(sections: ReferenceSection[], base: string): string {
  return sections
    .map(
      (s) =>
        `<section aria-labelledby="tag-${s.slug}"><h2 id="tag-${s.slug}"><a href="${base}/${s.slug}">${esc(s.tag)}</a></h2><p>${inline(s.description)}</p>` +
        `<ul class="ops">${s.operations.map((o) => `<li id="${esc(o.id)}"><a href="${base}/${s.slug}#${esc(o.id)}"><span class="method m-${o.method.toLowerCase()}">${o.method}</span> <code>${esc(o.path)}</code></a> ${inline(o.summary)}</li>`).join('')}</ul></section>`,
    )
    .join('\n');
}

/** The body of the webhooks page: the two webhooks the merchant receives, their bodies and headers. */
export function webhookPage(doc: Json, lead: string): string {
  const items = Object.entries<Json>(doc.webhooks ?? {}).map(([name, w]) => {
    const post = w.post;
    const media = post.requestBody.content['application/json'];
    const headers = (post.parameters ?? []).map((p: Json) => ({ name: p.name, type: 'string', required: true, description: p.description ?? '' }));
    return [
      `<article class="op" id="webhook-${esc(slug(name))}" aria-labelledby="webhook-${esc(slug(name))}-title">`,
      `<h2 id="webhook-${esc(slug(name))}-title"><span class="method m-post">POST</span> <code class="path">your webhook URL</code> — ${esc(post.summary ?? name)}</h2>`,
      post.description ? `<div class="prose">${markdown(post.description, { headingShift: 2 })}</div>` : '',
      fieldTable('Headers', headers),
      fieldTable('Body', fields(doc, media.schema)),
      media.example !== undefined ? json('Body example', media.example) : '',
      '</article>',
    ].join('\n');
  });
  return `<h1>Webhooks</h1><p class="lead">${lead}</p><p>What your webhook URL receives. See the <a href="/docs/guides/webhooks">webhooks guide</a> to verify both signatures.</p>\n${items.join('\n')}`;
}
