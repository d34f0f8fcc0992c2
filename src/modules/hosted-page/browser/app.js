// The hosted deposit page (redirect flow). Plain ES module, no framework, no build step.
// Talks only to its own origin: /api/v1/hosted/<token>[/inventory|/deposit|/status].
import { parseTradeLink } from './trade-link.js';
import { STATUS_LABELS, TERMINAL, describeError, failSentence, parentStatus } from './messages.js';

const POLL_MS = 1500;
const HOLD_POLL_MS = 10000;
const REDIRECT_DELAY_MS = 2500;
const GAME_NAMES = { csgo: 'Counter-Strike 2', rust: 'Rust', dota2: 'Dota 2', tf2: 'Team Fortress 2' };

const $ = (id) => document.getElementById(id);
const hostedToken = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');
const api = `/api/v1/hosted/${encodeURIComponent(hostedToken)}`;

const state = {
  intent: null, // GET /api/v1/hosted/<token>
  link: null, // {partner, token} typed by the user (when the intent has none)
  game: null,
  items: [],
  maxItems: 1,
  selected: new Set(),
  lastPosted: null,
  lastStatus: null,
  clockSkewMs: 0,
  pollTimer: 0,
  countdownTimer: 0,
  busy: false,
};

// ---------------------------------------------------------------- helpers

async function call(method, path, body) {
  let res;
  try {
    res = await fetch(api + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    return { ok: false, status: 0, body: null };
  }
  let json = null;
  try {
    json = await res.json();
  } catch {
    json = null;
  }
  return { ok: res.ok && json?.success === true, status: res.status, body: json };
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 3 });
const toMills = (n) => Math.round(Number(n) * 1000);
const money = (mills) => usd.format(mills / 1000);

function show(view) {
  for (const v of ['loading', 'link', 'items', 'offer', 'gone', 'expired']) $(`view-${v}`).hidden = v !== view;
  $('app').dataset.view = view;
}

function alertBox(text, kind = 'error') {
  const el = $('alert');
  if (!text) {
    el.hidden = true;
    el.textContent = '';
    return;
  }
  el.dataset.kind = kind;
  el.textContent = text;
  el.hidden = false;
}

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') node.className = v;
    else if (k === 'style') for (const [p, val] of Object.entries(v)) node.style.setProperty(p, val);
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

const safeColor = (c) => (typeof c === 'string' && /^#?[0-9a-f]{3,8}$/i.test(c) ? (c.startsWith('#') ? c : `#${c}`) : null);
const isHttpUrl = (u) => typeof u === 'string' && /^https?:\/\//i.test(u);

// ---------------------------------------------------------------- embedding (spec 6.3)

function notifyParent(status) {
  const s = parentStatus(status);
  if (!s || s === state.lastPosted) return;
  state.lastPosted = s;
  if (window.parent === window) return;
  const message = { type: 'gateway:deposit-status', txId: state.intent.merchant_tx_id, status: s };
  // Only the merchant's own origins when it configured them; the browser drops the others.
  const origins = state.intent.parent_origins?.length ? state.intent.parent_origins : ['*'];
  for (const origin of origins) {
    try {
      window.parent.postMessage(message, origin);
    } catch {
      /* a detached parent: nothing to tell */
    }
  }
}

/** Sends the top window to the merchant's success_url / fail_url, guarded for sandboxed frames. */
function redirectTop(url) {
  if (!isHttpUrl(url)) return;
  const link = $('continue');
  link.href = url;
  link.hidden = false;
  setTimeout(() => {
    try {
      (window.top ?? window).location.href = url;
    } catch {
      // A sandboxed or cross-origin frame without top-navigation rights: the Continue link stays.
    }
  }, REDIRECT_DELAY_MS);
}

// ---------------------------------------------------------------- start

async function start() {
  const res = await call('GET', '');
  if (!res.ok) {
    if (res.status === 404) {
      document.title = 'Deposit link not valid';
      show('gone');
      return;
    }
    show('loading');
    alertBox(describeError(res.body, res.status));
    setTimeout(start, 3000);
    return;
  }
  alertBox('');
  const intent = res.body.data;
  state.intent = intent;
  state.clockSkewMs = Date.parse(intent.server_time) - Date.now() || 0;
  $('subtitle').textContent = `${intent.merchant_name} · order ${intent.merchant_tx_id}`;
  setupGameSelect(intent);
  notifyParent(intent.status);
  state.lastStatus = intent.status;
  if (intent.status !== 'new') {
    renderOffer(intent);
    schedulePoll();
    return;
  }
  if (intent.expired) return showExpired();
  if (!intent.needs_trade_link && intent.game) {
    state.game = intent.game;
    await loadInventory();
  } else {
    showLinkForm();
  }
}

/** The link outlived INTENT_TTL_SECONDS before a deposit was made: nothing can be deposited through it. */
function showExpired() {
  document.title = 'Deposit link expired';
  alertBox('');
  show('expired');
}

function setupGameSelect(intent) {
  const select = $('game');
  select.replaceChildren(...intent.games.map((g) => el('option', { value: g }, GAME_NAMES[g] ?? g)));
  $('field-game').hidden = !!intent.game;
  $('field-link').hidden = !intent.needs_trade_link;
}

function showLinkForm() {
  show('link');
  $('link-heading').textContent = state.intent.needs_trade_link ? 'Where are your items?' : 'Which game?';
  (state.intent.needs_trade_link ? $('trade-link') : $('game')).focus();
}

function setLinkError(text) {
  const input = $('trade-link');
  $('trade-link-error').textContent = text ?? '';
  $('trade-link-error').hidden = !text;
  input.setAttribute('aria-invalid', text ? 'true' : 'false');
}

$('link-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  if (state.busy) return;
  alertBox('');
  if (state.intent.needs_trade_link) {
    const parsed = parseTradeLink($('trade-link').value);
    if (!parsed.ok) {
      setLinkError(parsed.error);
      $('trade-link').focus();
      return;
    }
    setLinkError(null);
    state.link = { partner: parsed.partner, token: parsed.token };
  }
  state.game = state.intent.game ?? $('game').value;
  await loadInventory();
});

$('change-link').addEventListener('click', () => {
  alertBox('');
  showLinkForm();
});

// ---------------------------------------------------------------- inventory

function tradeLinkBody() {
  return { ...(state.link ?? {}), ...(state.intent.game ? {} : { game: state.game }) };
}

async function loadInventory(note) {
  state.busy = true;
  $('link-submit').disabled = true;
  show('loading');
  const res = await call('POST', '/inventory', tradeLinkBody());
  state.busy = false;
  $('link-submit').disabled = false;
  if (!res.ok) {
    if (res.body?.data?.[0]?.code === 'link_expired') return showExpired();
    alertBox(describeError(res.body, res.status));
    if (res.body?.data?.[0]?.code === 'denied') return refreshAfterSubmit();
    if (state.intent.needs_trade_link || !state.intent.game) showLinkForm();
    else {
      state.items = [];
      show('items');
      renderItems();
      $('items-empty').textContent = 'Your inventory could not be loaded.';
    }
    return;
  }
  const data = res.body.data;
  state.items = (data.items ?? []).map((it) => ({ ...it, mills: toMills(it.price) }));
  state.maxItems = Math.max(1, Number(data.max_items) || state.intent.max_items || 1);
  state.selected.clear();
  if (note) alertBox(note, 'info');
  show('items');
  $('change-link').hidden = !(state.intent.needs_trade_link || !state.intent.game);
  $('items-heading').textContent = `Choose items · ${GAME_NAMES[data.game] ?? data.game}`;
  renderItems();
  $('items-heading').focus?.();
}

function visibleItems() {
  const q = $('search').value.trim().toLowerCase();
  const list = q ? state.items.filter((i) => i.name.toLowerCase().includes(q)) : state.items.slice();
  const sort = $('sort').value;
  if (sort === 'price-asc') list.sort((a, b) => a.mills - b.mills || a.name.localeCompare(b.name));
  else if (sort === 'name') list.sort((a, b) => a.name.localeCompare(b.name));
  else list.sort((a, b) => b.mills - a.mills || a.name.localeCompare(b.name));
  return list;
}

function initials(name) {
  return name
    .replace(/[|★™()]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0].toUpperCase())
    .join('');
}

function itemImage(item) {
  const box = el('span', { class: 'card-img' });
  const placeholder = () => box.replaceChildren(el('span', { class: 'ph', 'aria-hidden': 'true' }, initials(item.name) || '?'));
  if (isHttpUrl(item.image_url)) {
    const img = el('img', { src: item.image_url, alt: '', loading: 'lazy', decoding: 'async', referrerpolicy: 'no-referrer' });
    img.addEventListener('error', placeholder, { once: true });
    box.append(img);
  } else placeholder();
  return box;
}

function card(item) {
  const selected = state.selected.has(item.id);
  const rarity = safeColor(item.rarity_color);
  const meta = [item.exterior, item.phase].filter(Boolean).join(' · ');
  const label = `${item.name}${meta ? `, ${meta}` : ''}${item.rarity ? `, ${item.rarity}` : ''}, ${money(item.mills)}`;
  return el(
    'button',
    {
      type: 'button',
      class: 'card',
      'aria-pressed': String(selected),
      'aria-label': label,
      'data-asset-id': item.id,
      ...(rarity ? { style: { '--rarity': rarity } } : {}),
      onclick: () => toggle(item),
    },
    el('span', { class: 'check', 'aria-hidden': 'true' }, '✓'),
    itemImage(item),
    el(
      'span',
      { class: 'card-body' },
      el('span', { class: 'card-name', title: item.name }, item.name),
      el(
        'span',
        { class: 'card-meta' },
        meta || '\u00a0',
      ),
      item.rarity ? el('span', { class: 'card-meta' }, el('span', { class: 'rarity' }, item.rarity)) : null,
      el('span', { class: 'card-price' }, money(item.mills)),
    ),
  );
}

function renderItems() {
  const list = visibleItems();
  $('grid').replaceChildren(...list.map(card));
  const empty = state.items.length === 0;
  $('items-empty').hidden = !(empty || list.length === 0);
  $('items-empty').textContent = empty
    ? 'None of the items in this inventory can be deposited right now.'
    : 'No items match your search.';
  const sum = state.items.reduce((s, i) => s + i.mills, 0);
  $('items-summary').textContent = empty
    ? ''
    : `${state.items.length} item${state.items.length === 1 ? '' : 's'} worth ${money(sum)} · up to ${state.maxItems} per deposit`;
  renderBar();
}

function renderBar() {
  const chosen = state.items.filter((i) => state.selected.has(i.id));
  const total = chosen.reduce((s, i) => s + i.mills, 0);
  $('total').textContent = money(total);
  $('count').textContent = `${chosen.length} of max ${state.maxItems} selected`;
  $('deposit').disabled = chosen.length === 0 || state.busy;
  $('deposit').textContent = chosen.length ? `Deposit ${chosen.length} item${chosen.length === 1 ? '' : 's'}` : 'Deposit';
}

function toggle(item) {
  if (state.busy) return;
  if (state.selected.has(item.id)) state.selected.delete(item.id);
  else if (state.selected.size >= state.maxItems) {
    alertBox(`You can deposit up to ${state.maxItems} item${state.maxItems === 1 ? '' : 's'} at once.`, 'info');
    return;
  } else state.selected.add(item.id);
  alertBox('');
  const node = $('grid').querySelector(`[data-asset-id="${CSS.escape(item.id)}"]`);
  node?.setAttribute('aria-pressed', String(state.selected.has(item.id)));
  renderBar();
}

$('search').addEventListener('input', () => renderItems());
$('sort').addEventListener('change', () => renderItems());

// ---------------------------------------------------------------- deposit

$('deposit').addEventListener('click', async () => {
  if (state.busy || state.selected.size === 0) return;
  state.busy = true;
  renderBar();
  $('deposit').textContent = 'Sending the offer…';
  alertBox('');
  const res = await call('POST', '/deposit', { ...tradeLinkBody(), asset_ids: [...state.selected] });
  state.busy = false;
  if (!res.ok) {
    const code = res.body?.data?.[0]?.code;
    renderBar();
    if (code === 'link_expired') return showExpired();
    if (code === 'inventory_reload' || code === 'item_specified_price_not_found') {
      return loadInventory(describeError(res.body, res.status));
    }
    alertBox(describeError(res.body, res.status));
    // item_not_available / price_changed: the deposit is stored failed; the page follows it.
    if (code === 'denied' || code === 'item_not_available' || code === 'price_changed' || res.status === 409) return refreshAfterSubmit();
    return;
  }
  // The deposit answer (4.3): active with the offer, or an in-band failure (HTTP 200, failed).
  const d = res.body.data;
  const merged = { ...state.intent, ...d, status: d.status ?? 'pending' };
  applyStatus(merged);
  schedulePoll();
});

async function refreshAfterSubmit() {
  const res = await call('GET', '/status');
  if (res.ok) {
    applyStatus(res.body.data);
    schedulePoll();
  }
}

// ---------------------------------------------------------------- status

function schedulePoll() {
  clearTimeout(state.pollTimer);
  if (TERMINAL.has(state.lastStatus)) return;
  state.pollTimer = setTimeout(poll, state.lastStatus === 'hold' ? HOLD_POLL_MS : POLL_MS);
}

async function poll() {
  const res = await call('GET', '/status');
  if (res.ok) applyStatus(res.body.data);
  schedulePoll();
}

function applyStatus(s) {
  if (s.server_time) state.clockSkewMs = Date.parse(s.server_time) - Date.now() || state.clockSkewMs;
  const changed = s.status !== state.lastStatus;
  state.lastStatus = s.status;
  state.intent = { ...state.intent, ...s };
  notifyParent(s.status);
  if (s.status === 'new') return; // still choosing (another tab, or an answer before commit)
  if (changed || $('view-offer').hidden) renderOffer(state.intent);
  else renderFacts(state.intent);
}

function renderFacts(s) {
  $('offer-bot').textContent = s.bot_name ?? '—';
  $('offer-id').textContent = s.trade_offer_id ?? '—';
  $('offer-amount').textContent = typeof s.amount === 'number' ? money(toMills(s.amount)) : '—';
  const open = $('offer-open');
  if (s.trade_offer_id && s.status === 'active' && /^\d+$/.test(s.trade_offer_id)) {
    open.href = `https://steamcommunity.com/tradeoffer/${s.trade_offer_id}/`;
    open.hidden = false;
  } else open.hidden = true;
  $('offer-hold-row').hidden = s.status !== 'hold' || !s.hold_end_date;
  if (s.hold_end_date) $('offer-hold').textContent = new Date(s.hold_end_date).toLocaleString();
  $('offer-expiry-row').hidden = s.status !== 'active' || !s.trade_offer_expiry_at;
  tickCountdown();
}

function tickCountdown() {
  clearTimeout(state.countdownTimer);
  const s = state.intent;
  if (s.status !== 'active' || !s.trade_offer_expiry_at) return;
  const left = Math.max(0, Date.parse(s.trade_offer_expiry_at) - (Date.now() + state.clockSkewMs));
  const secs = Math.ceil(left / 1000);
  const h = Math.floor(secs / 3600);
  const m = Math.floor((secs % 3600) / 60);
  const sec = String(secs % 60).padStart(2, '0');
  $('offer-expiry').textContent = left <= 0 ? 'expired' : h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
  if (left > 0) state.countdownTimer = setTimeout(tickCountdown, 1000 - (left % 1000 || 1000) + 20);
}

function renderOffer(s) {
  show('offer');
  const pill = $('status-pill');
  pill.dataset.status = s.status;
  pill.textContent = STATUS_LABELS[s.status] ?? s.status;
  $('status-tx').textContent = `Deposit #${s.id}`;
  const heading = $('offer-heading');
  const text = $('offer-text');
  $('offer-hint').hidden = s.status !== 'active';
  switch (s.status) {
    case 'pending':
      heading.textContent = 'Sending the trade offer…';
      text.textContent = 'One moment: a bot is preparing your trade offer.';
      break;
    case 'active':
      heading.textContent = 'Accept the trade offer in Steam';
      text.textContent = `${s.bot_name ?? 'Our bot'} sent you a trade offer. Accept it in Steam before it expires.`;
      break;
    case 'hold':
      heading.textContent = 'Items received — on trade hold';
      text.textContent = 'Thank you! Steam holds the traded items for a while before they are final. Your deposit completes by itself when the hold ends.';
      break;
    case 'completed':
      heading.textContent = 'Deposit completed';
      text.textContent = 'Thank you! Your items were received.';
      break;
    default:
      heading.textContent = s.status === 'canceled' ? 'Deposit canceled' : s.status === 'reverted' ? 'Deposit reversed' : 'Deposit failed';
      text.textContent = failSentence(s.fail_reason);
  }
  renderFacts(s);
  heading.focus?.();
  if (s.status === 'completed') redirectTop(s.success_url);
  else if (s.status === 'failed' || s.status === 'canceled' || s.status === 'reverted') redirectTop(s.fail_url);
  if (TERMINAL.has(s.status) && isHttpUrl(s.status === 'completed' ? s.success_url : s.fail_url)) {
    text.textContent += ' Taking you back…';
  }
}

start();
