// Limits on every door (issue 22, src/http/rate-limit.ts): the token buckets alone (time injected),
// then a gateway with small limits: a flood on the hosted status door from another process is
// refused with 429 (counted in /metrics, one sampled log line, no access line each) while a second
// client's merchant requests all answer 200; the per-key limit and the merchant's own limit (admin
// API); unknown keys and sign-in posts limited per address; the in-flight cap sheds with 503.
// Outcomes only, no wall-clock thresholds (the bench row measures latencies: bench/RESULTS.md).
import http from 'node:http';
import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { addressKey, Buckets, doorOf, MAX_BUCKETS, REFUSAL_LOG_MS, TOO_MANY_REQUESTS } from '../../src/http/rate-limit.js';

describe('token buckets', () => {
  it('holds a minute of requests, refills evenly, and words the refusal', () => {
    let t = 0;
    const b = new Buckets(() => t);
    for (let i = 0; i < 60; i++) expect(b.take('k', 60).ok).toBe(true);
    const refused = b.take('k', 60);
    expect(refused).toMatchObject({ ok: false, limit: 60, remaining: 0, retryAfterS: 1, resetS: 60 });
    t += 1000; // one request's worth
    expect(b.take('k', 60)).toMatchObject({ ok: true, remaining: 0 });
    expect(b.take('k', 60).ok).toBe(false);
    expect(b.take('other', 60)).toMatchObject({ ok: true, remaining: 59, resetS: 1 });
    // a raised limit counts at once; a lowered one clamps
    expect(b.take('k', 120)).toMatchObject({ ok: true, limit: 120, remaining: 59 });
    expect(b.take('k', 10)).toMatchObject({ ok: true, limit: 10, remaining: 9 });
  });

  it('forgets full buckets and stays bounded', () => {
    let t = 0;
    const b = new Buckets(() => t);
    b.take('a', 60);
    b.take('b', 60);
    t += 500;
    b.prune();
    expect(b.size).toBe(2);
    t += 1000;
    b.prune();
    expect(b.size).toBe(0);
    for (let i = 0; i < MAX_BUCKETS + 10; i++) b.take(`k${i}`, 1);
    expect(b.size).toBeLessThanOrEqual(MAX_BUCKETS);
  });

  it('counts IPv6 clients by /64 and mapped IPv4 as IPv4', () => {
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe(addressKey('2001:0db8:1:2::9'));
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
  });

  it('sorts requests into doors', () => {
    expect(doorOf('GET', '/api/v1/merchant/balance')).toBe('merchant');
    expect(doorOf('GET', '/api/v1/hosted/abc/status')).toBe('hosted');
    expect(doorOf('GET', '/deposit/abc')).toBe('hosted');
    expect(doorOf('POST', '/dashboard/sign-in')).toBe('sign_in');
    expect(doorOf('GET', '/dashboard/sign-in')).toBe('public');
    expect(doorOf('GET', '/docs')).toBe('public');
    for (const free of ['/api/admin/merchants', '/healthz', '/readyz', '/metrics']) expect(doorOf('GET', free)).toBeUndefined();
  });
});

/** GET over real HTTP (keep-alive, `agent`): status, headers and parsed body. */
function get(agent: http.Agent, url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* HTML */
        }
        resolve({ status: res.statusCode!, headers: res.headers, body });
      });
    });
    req.on('error', reject);
  });
}

/** Requests a bucket of `perMinute` refilled since `started` (performance.now()), rounded up. */
const refilled = (perMinute: number, started: number) => Math.ceil(((performance.now() - started) / 60_000) * perMinute) + 1;

/** `n` GETs of `url` on `sockets` kept-alive sockets, from a process of its own (the flood): prints "first" at the first answer, then the statuses and one 429 answer as JSON. */
const FLOOD_CHILD = `
import http from 'node:http';
const [url, n, sockets] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
const statuses = {};
let refused, first = true;
await Promise.all(Array.from({ length: n }, () => new Promise((resolve) => {
  http.get(url, { agent }, (res) => {
    let body = '';
    res.on('data', (c) => (body += c));
    res.on('end', () => {
      if (first) { first = false; process.stdout.write('first\\n'); }
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      if (res.statusCode === 429 && !refused) refused = { headers: res.headers, body: JSON.parse(body) };
      resolve();
    });
  }).on('error', (err) => { statuses[err.code] = (statuses[err.code] ?? 0) + 1; resolve(); });
})));
agent.destroy();
process.stdout.write(JSON.stringify({ statuses, refused }) + '\\n');
`;

describe('a flood from another process', () => {
  let gw: TestGateway;
  let log = '';
  const HOSTED = 60;
  const IN_FLIGHT = 8;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, cb) {
        log += String(chunk);
        cb();
      },
    });
    gw = await startTestGateway(
      { RATE_LIMIT_HOSTED_PER_MINUTE: String(HOSTED), RATE_LIMIT_IN_FLIGHT: String(IN_FLIGHT), LOG_REQUESTS: 'errors' },
      { worker: false, logger: pino({ level: 'info' }, sink) },
    );
  });
  afterAll(async () => gw?.stop());

  it('the hosted status door answers 429s, counted by door and status; a second client on the merchant API gets every answer', async () => {
    const owner = await gw.createMerchant({ name: 'Flooded page' });
    const intent = await gw.merchant(owner.api_key, 'POST', '/create-intent', { merchant_tx_id: `rl-${crypto.randomUUID()}` });
    expect(intent.status).toBe(200);
    const token = new URL(intent.body.data.url).pathname.split('/').pop()!;
    const second = await gw.createMerchant({ name: 'Second client' });

    const FLOOD = 400;
    const started = performance.now();
    const child = spawn(process.execPath, ['--input-type=module', '-e', FLOOD_CHILD, `${gw.url}/api/v1/hosted/${token}/status`, String(FLOOD), '64'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += String(c)));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    let done = false;
    void exited.then(() => (done = true));
    await eventually(async () => out.includes('first') || done, 120_000);

    // the second client, one request at a time over a real socket, for as long as the flood lasts
    const calmAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const calm: { status: number; limit: unknown }[] = [];
    try {
      while (!done || calm.length < 5) {
        const r = await get(calmAgent, `${gw.url}/api/v1/merchant/balance`, { 'x-api-key': second.api_key });
        calm.push({ status: r.status, limit: r.headers['ratelimit-limit'] });
      }
    } finally {
      calmAgent.destroy();
    }
    expect(await exited).toBe(0);
    const { statuses, refused } = JSON.parse(out.trim().split('\n').pop()!) as { statuses: Record<string, number>; refused: { headers: http.IncomingHttpHeaders; body: unknown } };

    // the second client: every answer 200, counted on its own key's bucket
    expect(calm.map((c) => c.status)).toEqual(calm.map(() => 200));
    expect(calm.every((c) => c.limit === '10000000')).toBe(true);
    // the flood: 429 past the bucket; those that took a token answered (200) or were shed (503)
    expect(Object.keys(statuses).filter((s) => !['200', '429', '503'].includes(s))).toEqual([]);
    const took = (statuses['200'] ?? 0) + (statuses['503'] ?? 0);
    expect(took).toBeGreaterThanOrEqual(HOSTED);
    expect(took).toBeLessThanOrEqual(HOSTED + refilled(HOSTED, started));
    expect(statuses['429']).toBe(FLOOD - took);
    expect(refused.body).toEqual({ success: false, message: TOO_MANY_REQUESTS });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['ratelimit-limit']).toBe(String(HOSTED));
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(refused.headers['x-request-id']).toBeTruthy();
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    // the in-flight cap held, and every request in flight was let go
    expect(gw.app.rateLimits.peakInFlight).toBeLessThanOrEqual(IN_FLIGHT);
    await eventually(async () => gw.app.rateLimits.inFlight === 0);

    // counted by door and status, in /metrics too
    expect(gw.app.rateLimits.refusals.hosted).toEqual({ 429: statuses['429'], 503: statuses['503'] ?? 0 });
    expect(gw.app.rateLimits.refusals.merchant).toEqual({ 429: 0, 503: 0 });
    const metrics = (await gw.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).body;
    expect(metrics).toContain(`gateway_rate_limit_refusals_total{door="hosted",status="429"} ${statuses['429']}`);
    expect(metrics).toContain('gateway_rate_limit_refusals_total{door="merchant",status="429"} 0');
    // no access line per refusal (LOG_REQUESTS=errors would write one per 4xx): one sampled line
    await new Promise((r) => setImmediate(r));
    const lines = log.trim().split('\n').map((l) => JSON.parse(l) as { msg: string; res?: { statusCode: number }; door?: string; refused429?: number; refused503?: number });
    expect(lines.filter((l) => l.res?.statusCode === 429 || l.res?.statusCode === 503)).toEqual([]);
    const sampled = lines.filter((l) => l.msg.startsWith('requests refused by a limit'));
    expect(sampled.length).toBeGreaterThanOrEqual(1);
    expect(sampled.length).toBeLessThanOrEqual(1 + Math.ceil((performance.now() - started) / REFUSAL_LOG_MS));
    expect(sampled[0]).toMatchObject({ door: 'hosted' });
    expect(sampled[0].refused429! + sampled[0].refused503!).toBe(1); // the first refusal is logged at once
  });
});

describe('limits on a gateway', () => {
  let gw: TestGateway;
  const HOSTED = 60;
  const MERCHANT = 30;
  const PUBLIC = 40;
  const SIGN_IN = 5;

  beforeAll(async () => {
    gw = await startTestGateway(
      {
        RATE_LIMIT_MERCHANT_PER_MINUTE: String(MERCHANT),
        RATE_LIMIT_HOSTED_PER_MINUTE: String(HOSTED),
        RATE_LIMIT_PUBLIC_PER_MINUTE: String(PUBLIC),
        RATE_LIMIT_SIGN_IN_PER_MINUTE: String(SIGN_IN),
      },
      { worker: false },
    );
  });
  afterAll(async () => gw?.stop());

  it('limits each API key; a merchant of its own limit set by the operator, back to the default with null', async () => {
    const a = await gw.createMerchant({ name: 'Busy loop' });
    const b = await gw.createMerchant({ name: 'Neighbour' });
    expect(a.rate_limit_per_minute).toBeNull();
    const remaining: string[] = [];
    const started = performance.now();
    let over: Awaited<ReturnType<TestGateway['merchant']>> | undefined;
    for (let i = 0; i < 3 * MERCHANT && !over; i++) {
      const r = await gw.merchant(a.api_key, 'GET', '/balance');
      if (r.status === 429) over = r;
      else {
        expect(r.status).toBe(200);
        remaining.push(r.headers['ratelimit-remaining']);
      }
    }
    // the bucket's minute, plus what refilled meanwhile (a slow machine)
    expect(remaining.length).toBeGreaterThanOrEqual(MERCHANT);
    expect(remaining.length).toBeLessThanOrEqual(MERCHANT + refilled(MERCHANT, started));
    expect(remaining[0]).toBe(String(MERCHANT - 1));
    expect(over).toBeDefined();
    expect(over!.body).toEqual({ success: false, message: TOO_MANY_REQUESTS });
    expect(over!.headers['ratelimit-limit']).toBe(String(MERCHANT));
    expect(over!.headers['ratelimit-remaining']).toBe('0');
    expect(Number(over!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await gw.merchant(b.api_key, 'GET', '/balance')).status).toBe(200);

    const raised = await gw.admin('PATCH', `/merchants/${a.id}`, { rate_limit_per_minute: 1000 });
    expect(raised.status).toBe(200);
    expect(raised.body.data.rate_limit_per_minute).toBe(1000);
    const after = await gw.merchant(a.api_key, 'GET', '/balance');
    expect(after.status).toBe(200);
    expect(after.headers['ratelimit-limit']).toBe('1000');

    expect((await gw.admin('PATCH', `/merchants/${a.id}`, { rate_limit_per_minute: 0 })).status).toBe(400);
    const reset = await gw.admin('PATCH', `/merchants/${a.id}`, { rate_limit_per_minute: null });
    expect(reset.body.data.rate_limit_per_minute).toBeNull();
    expect((await gw.merchant(a.api_key, 'GET', '/balance')).headers['ratelimit-limit']).toBe(String(MERCHANT));
  });

  it('unknown API keys count on the caller address before any lookup', async () => {
    const statuses: number[] = [];
    const started = performance.now();
    for (let i = 0; i < 3 * PUBLIC && !statuses.includes(429); i++) {
      const r = await gw.app.inject({ method: 'GET', url: '/api/v1/merchant/balance', headers: { 'x-api-key': `sk_${crypto.randomUUID()}` }, remoteAddress: '198.51.100.20' });
      statuses.push(r.statusCode);
    }
    const unauthorized = statuses.filter((x) => x === 401).length;
    expect(unauthorized).toBeGreaterThanOrEqual(PUBLIC);
    expect(unauthorized).toBeLessThanOrEqual(PUBLIC + refilled(PUBLIC, started));
    expect(statuses.at(-1)).toBe(429);
  });

  it('sign-in posts are limited per address (the form page shows the refusal)', async () => {
    const statuses: number[] = [];
    let last: { headers: Record<string, unknown>; body: string } | undefined;
    for (let i = 0; i < SIGN_IN + 2; i++) {
      const r = await gw.app.inject({ method: 'POST', url: '/dashboard/sign-in', payload: 'email=a%40b.example&password=x', headers: { 'content-type': 'application/x-www-form-urlencoded' }, remoteAddress: '198.51.100.30' });
      statuses.push(r.statusCode);
      last = r;
    }
    expect(statuses.slice(0, SIGN_IN)).not.toContain(429);
    expect(statuses.slice(SIGN_IN)).toEqual([429, 429]);
    expect(Number(last!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(last!.headers['ratelimit-limit']).toBe(String(SIGN_IN));
    // a page, not the API's JSON envelope (the dashboard's own error handler renders the refusal)
    expect(String(last!.headers['content-type'])).toMatch(/^text\/html/);
    expect(last!.body).toContain(TOO_MANY_REQUESTS);
    // another address is not affected
    const other = await gw.app.inject({ method: 'POST', url: '/dashboard/sign-in', payload: 'email=a%40b.example&password=x', headers: { 'content-type': 'application/x-www-form-urlencoded' }, remoteAddress: '198.51.100.31' });
    expect(other.statusCode).not.toBe(429);
  });
});

describe('load shedding', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ RATE_LIMIT_IN_FLIGHT: '4' }, {
      worker: false,
      // hosted answers held 200 ms, so that the flood is in flight at once
      configureServer: (app) => {
        app.addHook('onRequest', (req, _reply, done) => {
          if (req.url.startsWith('/api/v1/hosted/')) setTimeout(done, 200);
          else done();
        });
      },
    });
  });
  afterAll(async () => gw?.stop());

  it('caps the unauthenticated requests in flight with 503 + Retry-After; the merchant API is not capped', async () => {
    const m = await gw.createMerchant({ name: 'Shed' });
    const intent = await gw.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: `shed-${crypto.randomUUID()}` });
    const token = new URL(intent.body.data.url).pathname.split('/').pop()!;
    const flood = Promise.all(Array.from({ length: 20 }, () => gw.app.inject({ method: 'GET', url: `/api/v1/hosted/${token}/status` })));
    const merchant = await Promise.all(Array.from({ length: 10 }, () => gw.merchant(m.api_key, 'GET', '/balance')));
    const answers = await flood;
    expect(merchant.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(4);
    const shed = answers.filter((a) => a.statusCode === 503);
    expect(shed).toHaveLength(16);
    expect(JSON.parse(shed[0].body)).toEqual({ success: false, message: 'the gateway is busy: retry shortly' });
    expect(shed[0].headers['retry-after']).toBe('1');
    // once answered, the door is open again
    expect((await gw.app.inject({ method: 'GET', url: `/api/v1/hosted/${token}/status` })).statusCode).toBe(200);
    expect(gw.app.rateLimits.inFlight).toBe(0);
  });
});
