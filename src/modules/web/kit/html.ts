// Server-rendered HTML: a tagged template that escapes every interpolated value unless it is
// already markup (Html), the page shell and a few shared pieces. No inline script or style, so the
// pages run under a strict Content-Security-Policy.

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(v: Part): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

export const raw = (s: string) => new Html(s);

/**
 * The one money format of the dashboard and the console: USD from mills at the ledger's precision,
 * always three decimals, exact: 1234500 → "$1,234.500", 1001243 → "$1,001.243", -5 → "-$0.005".
 */
export function usd(mills: number): string {
  const m = Math.round(mills);
  const abs = Math.abs(m);
  const int = Math.floor(abs / 1000).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${m < 0 ? '-' : ''}$${int}.${String(abs % 1000).padStart(3, '0')}`;
}

/** An amount for a table cell or a figure: the one format, aligned right in tables (class num). */
export function money(mills: number, suffix?: string): Html {
  return html`<span class="num">${usd(mills)}${suffix ?? ''}</span>`;
}

const NUM = '<span class="num">';

export function when(d: Date | string | null | undefined): string {
  if (!d) return '';
  return new Date(d).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
}

export function statusBadge(status: string): Html {
  return html`<span class="badge badge-${status}">${status}</span>`;
}

export interface NavItem {
  href: string;
  label: string;
}

export interface PageOptions {
  title: string;
  nav?: NavItem[];
  current?: string;
  user?: { email: string; role: string; csrf: string; merchantName?: string };
  flash?: { kind: 'ok' | 'error'; text: string } | undefined;
  scripts?: string[];
  home?: string;
}

/**
 * The confirmation of an action that ends in a redirect (POST → 303 → GET): the redirect carries
 * `?done=<code>` and the page shows this text. Fixed texts only: a link cannot make a page say
 * something of its own.
 */
export const DONE: Record<string, string> = {
  user_disabled: 'The user is disabled and signed out everywhere.',
  user_enabled: 'The user is enabled again.',
  team_totp_required: 'An authenticator is now required of everyone on the team.',
  team_totp_optional: 'An authenticator is now optional for the team.',
  withdrawal_completed: 'The withdrawal is completed.',
  withdrawal_failed: 'The withdrawal is marked failed; its amount is back in the available balance.',
  withdrawal_canceled: 'The withdrawal is canceled; its amount is back in the available balance.',
  bot_enabled: 'The bot is enabled and back in rotation.',
  bot_disabled: 'The bot is disabled: out of rotation.',
  reconciliation_run: 'The reconciliation ran: its result is below.',
  sandbox_done: 'The sandbox action was applied: the status and timeline below show its effect.',
  signed_out: 'You are signed out.',
  signed_out_everywhere: 'You are signed out in every browser.',
};

/** The page's confirmation from `?done=` (unknown codes show nothing). */
export function doneFlash(query: unknown): { kind: 'ok'; text: string } | undefined {
  const code = (query as { done?: unknown } | undefined)?.done;
  return typeof code === 'string' && Object.hasOwn(DONE, code) ? { kind: 'ok', text: DONE[code] } : undefined;
}

export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`;
}

export function page(opts: PageOptions, body: Html): string {
  const nav = opts.nav ?? [];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${opts.title} · Skin Trading Gateway</title>
<link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
${[...new Set([...(opts.scripts ?? []), ...(nav.length ? ['dashboard.js'] : [])])].map((s) => html`<script src="/dashboard/assets/${s}" defer></script>`)}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="${opts.home ?? '/dashboard'}">Skin Trading Gateway</a>
  ${opts.user ? html`<span class="who">${opts.user.merchantName ? html`<strong>${opts.user.merchantName}</strong> · ` : ''}${opts.user.email} (${opts.user.role})</span>
  <form method="post" action="/dashboard/sign-out" class="inline">${csrfField(opts.user.csrf)}<button type="submit" class="link">Sign out</button></form>` : ''}
</header>
${nav.length ? html`<nav class="side" id="side-nav" aria-label="Sections"><button type="button" class="menu-button" id="menu-button" aria-expanded="false" aria-controls="side-nav-list">Menu</button><ul id="side-nav-list">${nav.map((n) => html`<li><a href="${n.href}"${n.href === opts.current ? raw(' aria-current="page"') : ''}>${n.label}</a></li>`)}</ul></nav>` : ''}
<main id="main" tabindex="-1">
<h1>${opts.title}</h1>
${opts.flash ? html`<p class="flash flash-${opts.flash.kind}" role="${opts.flash.kind === 'error' ? 'alert' : 'status'}">${opts.flash.text}</p>` : ''}
${body}
</main>
</body>
</html>`.value;
}

/** A data table with a caption (screen readers) that scrolls sideways on a phone. */
export function table(caption: string, headers: string[], rows: Part[][], empty = 'Nothing yet.'): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  // A column of amounts (money()) is aligned right, its header too.
  const num = headers.map((_, i) => rows.some((r) => r[i] instanceof Html && r[i].value.startsWith(NUM)));
  const cls = (i: number) => (num[i] ? raw(' class="num"') : '');
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}"><table>
<caption>${caption}</caption>
<thead><tr>${headers.map((h, i) => html`<th scope="col"${cls(i)}>${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((c, i) => html`<td data-label="${headers[i] ?? ''}"${cls(i)}>${c}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

/** A definition list of label → value. */
export function facts(items: [string, Part][]): Html {
  return html`<dl class="facts">${items.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`;
}

/** "Older →" link of a keyset-paginated list: the same query with before=<last id>. */
export function pager(path: string, query: Record<string, string | undefined>, nextBefore: number | undefined): Html {
  if (nextBefore === undefined) return html``;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) q.set(k, v);
  q.set('before', String(nextBefore));
  return html`<p class="pager"><a href="${path}?${q.toString()}" rel="next">Older →</a></p>`;
}

/** A one-field POST form (a button) with the CSRF token. */
export function actionButton(action: string, label: string, csrf: string, opts: { danger?: boolean; fields?: Record<string, string>; confirm?: string } = {}): Html {
  return html`<form method="post" action="${action}" class="inline"${opts.confirm ? html` data-confirm="${opts.confirm}"` : ''}>${csrfField(csrf)}${Object.entries(opts.fields ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}<button type="submit"${opts.danger ? raw(' class="danger"') : ''}>${label}</button></form>`;
}

/** A secret shown once, with a hint that it will not be shown again. */
export function shownOnce(label: string, value: string): Html {
  return html`<div class="secret" role="status"><p><strong>${label}</strong> — copy it now: it is shown only once.</p><code id="secret-value">${value}</code></div>`;
}
