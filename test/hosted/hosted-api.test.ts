// The hosted page's server side without a browser: the page route (CSP, embedding), its static
// assets, and the public JSON API authenticated by the hosted token only.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { frameAncestors, hostedPageCsp, isFrameAncestorSource } from '../../src/modules/hosted-page/frame-policy.js';
import { parseTradeLink } from '../../src/modules/hosted-page/browser/trade-link.js';
import { describeError, parentStatus } from '../../src/modules/hosted-page/browser/messages.js';

let gw: TestGateway;
let m: Awaited<ReturnType<TestGateway['createMerchant']>>;
let seq = 0;
const txId = () => `hosted-${Date.now()}-${++seq}`;

beforeAll(async () => {
  gw = await startTestGateway();
  m = await gw.createMerchant({ name: 'Hosted merchant', max_items: 5 });
});
afterAll(async () => gw?.stop());

async function intent(body: Record<string, unknown> = {}, key = m.api_key) {
  const res = await gw.merchant(key, 'POST', '/create-intent', { merchant_tx_id: txId(), ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const token = new URL(res.body.data.url).pathname.split('/').pop()!;
  return { ...res.body.data, token } as { id: number; merchant_tx_id: string; url: string; token: string };
}

async function hosted(method: string, path: string, body?: unknown) {
  const res = await gw.app.inject({
    method: method as 'GET' | 'POST',
    url: `/api/v1/hosted/${path}`,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

describe('hosted page route', () => {
  it('serves the page for a known token: HTML, frameable by any site when frame_ancestors is empty', async () => {
    const i = await intent();
    const res = await gw.app.inject({ method: 'GET', url: `/deposit/${i.token}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<script type="module" src="/hosted/assets/app.js"></script>');
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect(res.headers['content-security-policy']).toContain('frame-ancestors *');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it("uses the merchant's frame_ancestors", async () => {
    const framed = await gw.createMerchant({ name: 'Framed', frame_ancestors: ['https://shop.example', 'https://*.shop.example'] });
    const i = await intent({}, framed.api_key);
    const res = await gw.app.inject({ method: 'GET', url: `/deposit/${i.token}` });
    expect(res.headers['content-security-policy']).toContain('frame-ancestors https://shop.example https://*.shop.example');
    expect(res.headers['x-frame-options']).toBeUndefined();
  });

  it('unknown or malformed token: 404 page (the page explains), never framed by anyone in particular', async () => {
    for (const t of ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'x', '..%2F..%2Fpackage.json', "'%3Bscript"]) {
      const res = await gw.app.inject({ method: 'GET', url: `/deposit/${t}` });
      expect(res.statusCode, t).toBe(404);
    }
  });

  it('serves the static assets from hosted-page/browser/ and nothing else', async () => {
    for (const [file, type] of [['app.js', /javascript/], ['app.css', /text\/css/], ['trade-link.js', /javascript/], ['messages.js', /javascript/]] as const) {
      const res = await gw.app.inject({ method: 'GET', url: `/hosted/assets/${file}` });
      expect(res.statusCode, file).toBe(200);
      expect(res.headers['content-type']).toMatch(type);
      const again = await gw.app.inject({ method: 'GET', url: `/hosted/assets/${file}`, headers: { 'if-none-match': String(res.headers.etag) } });
      expect(again.statusCode).toBe(304);
    }
    for (const bad of ['deposit.html', 'trade-link.d.ts', '..%2Fpackage.json', 'nope.js']) {
      expect((await gw.app.inject({ method: 'GET', url: `/hosted/assets/${bad}` })).statusCode, bad).toBe(404);
    }
  });

  it('frame-ancestors entries are CSP sources; anything that could inject a directive is dropped', () => {
    expect(frameAncestors([])).toBe('*');
    expect(frameAncestors(["'self'", 'https://a.example:8443', 'https:'])).toBe("'self' https://a.example:8443 https:");
    expect(isFrameAncestorSource("https://a.example; script-src *")).toBe(false);
    expect(isFrameAncestorSource('https://a.example\nx')).toBe(false);
    expect(frameAncestors(['bad value;'])).toBe("'none'");
    expect(hostedPageCsp(['https://a.example', 'evil; x'])).toMatch(/frame-ancestors https:\/\/a\.example$/);
  });
});

describe('hosted JSON API', () => {
  it('unknown token → 404 not found error on every endpoint', async () => {
    const t = 'B'.repeat(43);
    expect(await hosted('GET', t)).toMatchObject({ status: 404, body: { success: false, message: 'not found error' } });
    expect((await hosted('GET', `${t}/status`)).status).toBe(404);
    expect((await hosted('POST', `${t}/inventory`, { partner: 12345678, token: 'abcdefgh', game: 'csgo' })).status).toBe(404);
    expect((await hosted('POST', `${t}/deposit`, { asset_ids: ['1'] })).status).toBe(404);
  });

  it("the deposit id is not a credential; another merchant's intent is not reachable through the merchant API", async () => {
    const i = await intent();
    expect((await hosted('GET', String(i.id))).status).toBe(404);
    const other = await gw.createMerchant({ name: 'Another' });
    const res = await gw.merchant(other.api_key, 'GET', `/deposit/status?id=${i.id}`);
    expect(res.status).toBe(404);
    const byTx = await gw.merchant(other.api_key, 'GET', `/deposit/status?merchant_tx_id=${i.merchant_tx_id}`);
    expect(byTx.status).toBe(404);
  });

  it('a token names exactly its intent and merchant', async () => {
    const other = await gw.createMerchant({ name: 'Second shop' });
    const mine = await intent({ game: 'rust' });
    const theirs = await intent({}, other.api_key);
    const a = await hosted('GET', mine.token);
    const b = await hosted('GET', theirs.token);
    expect(a.body.data).toMatchObject({ id: mine.id, merchant_tx_id: mine.merchant_tx_id, merchant_name: 'Hosted merchant', status: 'new', game: 'rust', needs_trade_link: true, max_items: 5 });
    expect(b.body.data).toMatchObject({ id: theirs.id, merchant_name: 'Second shop', game: null });
    expect(a.headers['cache-control']).toBe('no-store');
    // the trade token never goes back to the browser
    const withLink = await intent({ partner: 12345678, token: 'SeCrEt12', game: 'csgo' });
    const state = await hosted('GET', withLink.token);
    expect(state.body.data.needs_trade_link).toBe(false);
    expect(JSON.stringify(state.body)).not.toContain('SeCrEt12');
  });

  it('inventory needs a trade link when the intent has none, and a game when the intent has none', async () => {
    const i = await intent();
    const res = await hosted('POST', `${i.token}/inventory`, {});
    expect(res.status).toBe(400);
    const fields = res.body.data.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['HostedInventoryRequest.partner', 'HostedInventoryRequest.token', 'HostedInventoryRequest.game']));
    const bad = await hosted('POST', `${i.token}/inventory`, { partner: 12345678, token: 'short', game: 'csgo' });
    expect(bad.status).toBe(400);
    expect(bad.body.data[0]).toMatchObject({ field: 'HostedInventoryRequest.token', code: 'len' });
  });

  it('a magic partner on the page gives its domain code first', async () => {
    const i = await intent({ game: 'csgo' });
    const res = await hosted('POST', `${i.token}/inventory`, { partner: 90000003, token: 'abcdefgh' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('validation error');
    expect(res.body.data[0]).toMatchObject({ field: 'partner', code: 'trade_banned' });
  });

  it('full flow: inventory → deposit (commits the intent) → sandbox accept → completed', async () => {
    const i = await intent({ success_url: 'https://shop.example/ok' });
    const inv = await hosted('POST', `${i.token}/inventory`, { partner: 23456789, token: 'abcdefgh', game: 'csgo' });
    expect(inv.status, JSON.stringify(inv.body)).toBe(200);
    expect(inv.body.data).toMatchObject({ game: 'csgo', max_items: 5 });
    expect(inv.body.data.items.length).toBeGreaterThan(0);
    const chosen = inv.body.data.items.slice(0, 2);

    const tooMany = await hosted('POST', `${i.token}/deposit`, { partner: 23456789, token: 'abcdefgh', game: 'csgo', asset_ids: inv.body.data.items.slice(0, 6).map((x: { id: string }) => x.id) });
    if (inv.body.data.items.length >= 6) {
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.message).toBe('deposit exceeds the maximum of 5 items per deposit');
    }

    const dep = await hosted('POST', `${i.token}/deposit`, { partner: 23456789, token: 'abcdefgh', game: 'csgo', asset_ids: chosen.map((x: { id: string }) => x.id) });
    expect(dep.status, JSON.stringify(dep.body)).toBe(200);
    expect(dep.body.data).toMatchObject({ id: i.id, merchant_tx_id: i.merchant_tx_id, status: 'active' });
    expect(dep.body.data.trade_offer_id).toBeTruthy();
    expect(dep.body.data.bot_name).toBeTruthy();

    const st = await hosted('GET', `${i.token}/status`);
    expect(st.body.data).toMatchObject({ status: 'active', bot_name: dep.body.data.bot_name, trade_offer_id: dep.body.data.trade_offer_id, success_url: 'https://shop.example/ok' });
    expect(st.body.data.trade_offer_expiry_at).toBeTruthy();
    const sum = chosen.reduce((s: number, x: { price: number }) => s + Math.round(x.price * 1000), 0) / 1000;
    expect(st.body.data.amount).toBe(sum);

    // a second submit of the same intent is refused
    const again = await hosted('POST', `${i.token}/deposit`, { partner: 23456789, token: 'abcdefgh', game: 'csgo', asset_ids: [chosen[0].id] });
    expect(again.status).toBe(400);
    expect(again.body.data[0].code).toBe('denied');
    expect((await hosted('POST', `${i.token}/inventory`, { partner: 23456789, token: 'abcdefgh', game: 'csgo' })).body.data[0].code).toBe('denied');

    const accept = await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${i.id}/accept`, { hold: false });
    expect(accept.status, JSON.stringify(accept.body)).toBe(200);
    await eventually(async () => (await hosted('GET', `${i.token}/status`)).body.data.status === 'completed');

    // the merchant sees the same deposit
    const ms = await gw.merchant(m.api_key, 'GET', `/deposit/status?merchant_tx_id=${i.merchant_tx_id}`);
    expect(ms.body.data).toMatchObject({ id: i.id, status: 'completed', amount: sum });
    const balance = await gw.merchant(m.api_key, 'GET', '/balance');
    expect(balance.body.data.available).toBeGreaterThanOrEqual(sum);
  });

  it("the intent's result_url gets the deposit webhook (trade_id = intent id) when the deposit completes", async () => {
    const received: Record<string, unknown>[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const i = await intent({ result_url: url, game: 'tf2', partner: 45678901, token: 'abcdefgh' });
      const inv = await hosted('POST', `${i.token}/inventory`, {});
      expect(inv.status, JSON.stringify(inv.body)).toBe(200);
      const dep = await hosted('POST', `${i.token}/deposit`, { asset_ids: [inv.body.data.items[0].id] });
      expect(dep.body.data.status).toBe('active');
      expect((await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${i.id}/accept`, { hold: false })).status).toBe(200);
      const hook = await eventually(async () => received.find((b) => b.status === 'completed'));
      expect(hook).toMatchObject({ trade_id: i.id, merchant_tx_id: i.merchant_tx_id, status: 'completed', amount: inv.body.data.items[0].price });
      expect(hook).not.toHaveProperty('purchase_id');
      expect(received.map((b) => b.status)).toEqual(['completed']); // nothing for new or active
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  });

  it('uses the trade link and game of the intent, ignoring the ones sent by the page', async () => {
    const i = await intent({ partner: 34567890, token: 'abcdefgh', game: 'dota2' });
    const inv = await hosted('POST', `${i.token}/inventory`, { partner: 90000003, token: 'zzzzzzzz', game: 'csgo' });
    expect(inv.status, JSON.stringify(inv.body)).toBe(200);
    expect(inv.body.data.game).toBe('dota2');
  });

  it('a disabled merchant cannot take deposits through the page', async () => {
    const d = await gw.createMerchant({ name: 'Soon disabled' });
    const i = await intent({ game: 'csgo', partner: 12345678, token: 'abcdefgh' }, d.api_key);
    await gw.admin('PATCH', `/merchants/${d.id}`, { enabled: false });
    const res = await hosted('POST', `${i.token}/inventory`, {});
    expect(res.status).toBe(403);
    expect((await hosted('GET', i.token)).status).toBe(403); // the whole page, not only its actions (issue 21)
  });
});

describe('page helpers (hosted-page/browser/*.js, pure)', () => {
  it('parses trade links and explains bad ones', () => {
    expect(parseTradeLink('https://steamcommunity.com/tradeoffer/new/?partner=123456789&token=AbCd_-12')).toEqual({ ok: true, partner: 123456789, token: 'AbCd_-12' });
    expect(parseTradeLink('  steamcommunity.com/tradeoffer/new?token=abcdefgh&partner=42  ')).toEqual({ ok: true, partner: 42, token: 'abcdefgh' });
    expect(parseTradeLink('')).toMatchObject({ ok: false });
    const notLink = parseTradeLink('https://steamcommunity.com/id/someone');
    expect(notLink).toMatchObject({ ok: false });
    expect((notLink as { error: string }).error).toMatch(/not a Steam trade link/);
    expect(parseTradeLink('https://evil.example/tradeoffer/new/?partner=1&token=abcdefgh')).toMatchObject({ ok: false });
    expect((parseTradeLink('https://steamcommunity.com/tradeoffer/new/?partner=123') as { error: string }).error).toMatch(/token/);
    expect((parseTradeLink('https://steamcommunity.com/tradeoffer/new/?partner=abc&token=abcdefgh') as { error: string }).error).toMatch(/partner/);
    expect((parseTradeLink('https://steamcommunity.com/tradeoffer/new/?partner=1&token=abc') as { error: string }).error).toMatch(/8/);
  });

  it('has a human sentence for every platform refusal of 7.3', () => {
    for (const code of ['trade_link_invalid', 'trade_link_revoked', 'trade_banned', 'profile_private', 'limited_account', 'hold', 'permissions', 'hold_and_permissions', 'inventory_reload', 'denied']) {
      const s = describeError({ success: false, message: 'validation error', data: [{ field: 'x', code, message: 'm' }] }, 400);
      expect(s, code).toMatch(/^[A-Z].+\.$/);
      if (code.includes('_')) expect(s).not.toContain(code);
    }
    expect(describeError({ success: false, message: 'deposit exceeds the maximum of 5 items per deposit', data: [{ field: 'asset_ids', code: 'too_many_items', message: 'x' }] }, 400)).toMatch(/Too many/);
    expect(describeError(null, 0)).toMatch(/connection/);
    // a 503 / 502 / 408 in front of the gateway (the gateway itself answers a failing platform with
    // 500 integration service error; partner 90000010 only goes silent when the offer is sent)
    expect(describeError({ success: false, message: 'service unavailable: the trading platform did not answer, retry shortly' }, 503)).toBe(
      'Steam is not responding right now. Please try again in a few minutes.',
    );
  });

  it('posts only the statuses of spec 6.3 to the parent', () => {
    expect(['new', 'active', 'hold', 'completed', 'canceled', 'failed'].map(parentStatus)).toEqual(['new', 'active', 'hold', 'completed', 'canceled', 'failed']);
    expect(parentStatus('pending')).toBeNull();
    expect(parentStatus('reverted')).toBe('failed');
  });
});
