// The catalogue page's 304 in front of the router (src/modules/catalogue/not-modified-lane.ts), over
// real HTTP (app.inject goes around the server's request listener): the lane answers a plain,
// authorised, unchanged page poll exactly as the route would, records its access line and metrics,
// and hands every other request (errors included) to the router, which words it as before.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { plainQuery } from '../../src/modules/catalogue/not-modified-lane.js';

let gw: TestGateway;
let m: { id: number; api_key: string };
/** Requests that reached Fastify's router (its onRequest hooks). */
let routed = 0;
const lines: Record<string, any>[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  gw = await startTestGateway(
    { SANDBOX_CATALOGUE_SIZE: '400' },
    {
      logger: pino({ level: 'info' }, sink),
      configureServer: (app) => {
        app.addHook('onRequest', (_req, _reply, done) => {
          routed++;
          done();
        });
      },
    },
  );
  m = await gw.createMerchant({ name: 'Lane' });
  await gw.topUp(m.id, 1_000_000);
  await eventually(async () => gw.ctx.catalogue.pageState.snapshot('csgo') !== undefined, 10_000);
});
afterAll(async () => {
  await gw?.stop();
});

async function get(path: string, headers: Record<string, string> = {}, key = m.api_key, method = 'GET') {
  const before = routed;
  const res = await fetch(`${gw.url}/api/v1/merchant${path}`, { method, headers: { 'x-api-key': key, ...headers } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, routed: routed - before };
}

const page = (n: number, extra = '') => `/purchase/available?game=csgo&full=true&page=${n}${extra}`;

async function etagOf(path: string): Promise<string> {
  const r = await get(path);
  expect(r.status).toBe(200);
  return r.headers.get('etag')!;
}

describe('the 304 lane', () => {
  it('answers an unchanged page without the router, with the route\'s headers, access line and metrics', async () => {
    const etag = await etagOf(page(3));
    const routerAnswer = await gw.merchant(m.api_key, 'GET', page(3), undefined, { 'if-none-match': etag }); // app.inject: the router's 304
    expect(routerAnswer.status).toBe(304);

    const before = lines.length;
    const r = await get(page(3), { 'if-none-match': etag, 'x-request-id': 'lane-1' });
    expect(r).toMatchObject({ status: 304, routed: 0 });
    expect(r.headers.get('etag')).toBe(etag);
    expect(r.headers.get('cache-control')).toBe(routerAnswer.headers['cache-control']);
    expect(r.headers.get('x-request-id')).toBe('lane-1');
    expect(r.headers.get('content-length')).toBeNull();

    await new Promise((r) => setImmediate(r)); // access lines go out at the end of the turn
    const line = lines.slice(before).find((l) => l.reqId === 'lane-1');
    expect(line).toMatchObject({ level: 30, msg: 'request completed', req: { method: 'GET', url: `/api/v1/merchant${page(3)}`, remoteAddress: '127.0.0.1' }, res: { statusCode: 304 } });
    expect(Object.keys(line!)).toEqual(['level', 'time', 'pid', 'hostname', 'reqId', 'req', 'res', 'responseTime', 'msg']);

    const count = async () => {
      const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${gw.ctx.config.adminToken}` } });
      const text = await res.text();
      const hit = /gateway_http_requests_total\{method="GET",route="\/api\/v1\/merchant\/purchase\/available",status="304"\} (\d+)/.exec(text);
      return Number(hit?.[1] ?? 0);
    };
    const n = await count();
    expect((await get(page(3), { 'if-none-match': etag })).routed).toBe(0);
    expect(await count()).toBe(n + 1);
  });

  it('counts every poll in the access log: polls of one turn are one line with "repeats", each a line of its own otherwise', async () => {
    const etag = await etagOf(page(5));
    const before = lines.length;
    const ids = Array.from({ length: 40 }, (_, i) => `poll-${i}`);
    const answers = await Promise.all(ids.map((id) => get(page(5), { 'if-none-match': etag, 'x-request-id': id })));
    expect(answers.every((a) => a.status === 304 && a.routed === 0)).toBe(true);
    await new Promise((r) => setImmediate(r));
    const mine = lines.slice(before).filter((l) => l.msg === 'request completed' && l.req.url === `/api/v1/merchant${page(5)}` && l.res.statusCode === 304);
    expect(mine.reduce((n, l) => n + (l.repeats ?? 1), 0)).toBe(40);
    for (const l of mine) {
      expect(ids).toContain(l.reqId);
      if (l.repeats !== undefined) expect(l.repeats).toBeGreaterThan(1);
    }
  });

  it('answers the grouped page 1 and W/ or listed ETags as the route does; a generated id when none is given', async () => {
    const grouped = '/purchase/available?game=csgo&page=1';
    const etag = await etagOf(grouped);
    expect(await get(grouped, { 'if-none-match': etag })).toMatchObject({ status: 304, routed: 0 });
    expect(await get(page(2, ''), { 'if-none-match': `"nope", W/${await etagOf(page(2))}` })).toMatchObject({ status: 304, routed: 0 });
    const r = await get(page(2), { 'if-none-match': await etagOf(page(2)) });
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('hands everything else to the router, which answers as before', async () => {
    const etag = await etagOf(page(4));
    const other = await gw.createMerchant({ name: 'Lane other', purchase_markup: 1.5 });
    // a stale ETag: the page itself
    expect(await get(page(4), { 'if-none-match': '"stale"' })).toMatchObject({ status: 200, routed: 1 });
    // query forms the lane does not read: percent-encoded, repeated, unknown, past the last page, grouped page 2, no page
    for (const path of [page(4, '&x=%41'), page(4, '&page=4'), page(4, '&x=1'), page(17), '/purchase/available?game=csgo&page=2', '/purchase/available?game=csgo&full=1&page=04']) {
      expect((await get(path, { 'if-none-match': etag })).routed, path).toBe(1);
    }
    // errors keep the router's words
    const badGame = await get('/purchase/available?game=nope&full=true&page=4', { 'if-none-match': etag });
    expect(badGame).toMatchObject({ status: 400, routed: 1, body: { success: false, message: 'invalid game code' } });
    const badPage = await get('/purchase/available?game=csgo&full=true&page=0', { 'if-none-match': etag });
    expect(badPage).toMatchObject({ status: 400, routed: 1, body: { message: 'page must be 1 or greater' } });
    expect(await get(page(4), { 'if-none-match': etag }, 'sk_not_a_key')).toMatchObject({ status: 401, routed: 1, body: { message: 'invalid API key' } });
    // another merchant's markup makes another ETag: a 200 of its own page, never the first one's 304
    expect(await get(page(4), { 'if-none-match': etag }, other.api_key)).toMatchObject({ status: 200, routed: 1 });
    // HEAD is the router's
    expect((await get(page(4), { 'if-none-match': etag }, m.api_key, 'HEAD')).routed).toBe(1);
  });

  it('refuses a disabled merchant or a caller outside the whitelist through the router, with its messages', async () => {
    const d = await gw.createMerchant({ name: 'Lane disabled' });
    const etag = (await get(page(5), {}, d.api_key)).headers.get('etag')!;
    expect(await get(page(5), { 'if-none-match': etag }, d.api_key)).toMatchObject({ status: 304, routed: 0 });

    expect((await gw.admin('PATCH', `/merchants/${d.id}`, { ip_whitelist: ['10.9.9.9'] })).status).toBe(200);
    const outside = await get(page(5), { 'if-none-match': etag }, d.api_key);
    expect(outside).toMatchObject({ status: 403, routed: 1, body: { message: 'IP not whitelisted: 127.0.0.1' } });

    expect((await gw.admin('PATCH', `/merchants/${d.id}`, { ip_whitelist: [], enabled: false })).status).toBe(200);
    const disabled = await get(page(5), { 'if-none-match': etag }, d.api_key);
    expect(disabled).toMatchObject({ status: 403, routed: 1, body: { message: 'merchant account is disabled' } });
  });

  it('stops answering 304 for a page once a sale changed it', async () => {
    const first = await get(page(6));
    const etag = first.headers.get('etag')!;
    const listing = first.body.data.items[0] as { id: string };
    const bought = await gw.merchant(m.api_key, 'POST', '/purchase', { partner: 12345678, token: 'abcdEFGH', game: 'csgo', asset_id: listing.id, merchant_tx_id: 'lane-sale' });
    expect(bought.status).toBe(200);
    await eventually(async () => (await get(page(6), { 'if-none-match': etag })).status === 200, 10_000);
    const after = await get(page(6), { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(after.body.data.items.map((i: { id: string }) => i.id)).not.toContain(listing.id);
  });
});

describe('the 304 lane behind a trusted proxy', () => {
  it('is off: the client address and host come from forwarded headers, which only the router reads', async () => {
    let seen = 0;
    const proxied = await startTestGateway(
      { TRUST_PROXY: 'true' },
      {
        configureServer: (app) => {
          app.addHook('onRequest', (_req, _reply, done) => {
            seen++;
            done();
          });
        },
      },
    );
    try {
      const p = await proxied.createMerchant({ name: 'Proxied' });
      await eventually(async () => proxied.ctx.catalogue.pageState.snapshot('csgo') !== undefined, 10_000);
      const url = `${proxied.url}/api/v1/merchant${page(1)}`;
      const etag = (await fetch(url, { headers: { 'x-api-key': p.api_key } })).headers.get('etag')!;
      const before = seen;
      const res = await fetch(url, { headers: { 'x-api-key': p.api_key, 'if-none-match': etag, 'x-forwarded-for': '10.1.2.3' } });
      expect(res.status).toBe(304);
      expect(seen - before).toBe(1);
    } finally {
      await proxied.stop();
    }
  });
});

describe('plainQuery', () => {
  it('reads game, page and the optional full/extended, each once', () => {
    expect(plainQuery('game=csgo&page=1')).toEqual({ game: 'csgo', page: 1, full: false, extended: false });
    expect(plainQuery('page=16&extended=1&full=true&game=rust')).toEqual({ game: 'rust', page: 16, full: true, extended: true });
    expect(plainQuery('game=dota2&full=0&extended=false&page=99')).toEqual({ game: 'dota2', page: 99, full: false, extended: false });
  });

  it('gives up on anything the route would read differently or refuse', () => {
    for (const qs of ['', 'game=csgo', 'page=1', 'game=csgo&page=0', 'game=csgo&page=01', 'game=csgo&page=100', 'game=csgo&page=1&page=2', 'game=csgo&game=rust&page=1',
      'game=CSGO&page=1', 'game=csgo&page=1&full=TRUE', 'game=csgo&page=1&full=', 'game=csgo&page=1&full', 'game=csgo&page=1&x=1', 'game=cs%67o&page=1',
      'game=csgo&page=1&extended=yes', 'game=csgo&page= 1', 'game=csgo&page=1+1', 'game=csgo&page=1&']) {
      expect(plainQuery(qs), qs).toBeUndefined();
    }
  });
});
