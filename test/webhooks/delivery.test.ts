// Webhook delivery end to end: a real gateway (job worker included) posting to a real HTTP
// receiver on 127.0.0.1. Events are produced the way the deposit and purchase flows do it:
// enqueueWebhook inside a database transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { enqueueWebhook, type WebhookEventInput } from '../../src/modules/webhooks/outbox.js';
import { freePort, startReceiver, verifySpecSign, verifyStandard, type Receiver } from './receiver.js';

let gw: TestGateway;
let rx: Receiver;
let m: Awaited<ReturnType<TestGateway['createMerchant']>>;
let nextRecord = 1000;

// Short schedule and timeout so that retries and exhaustion happen within a test.
const ENV = { WEBHOOK_RETRY_SCHEDULE: '0,1,1', WEBHOOK_TIMEOUT_MS: '500' };

beforeAll(async () => {
  rx = await startReceiver();
  gw = await startTestGateway(ENV);
  m = await gw.createMerchant({ name: 'Webhook merchant', webhook_url: rx.url('/merchant-hook') });
});
afterAll(async () => {
  await gw?.stop();
  await rx?.close();
});

function depositPayload(tradeId: number, status: string, extra: Record<string, unknown> = {}) {
  return {
    status,
    trade_id: tradeId,
    trade_date: '2026-10-06T10:00:12.512Z',
    merchant_tx_id: `dep-${tradeId}`,
    platform_id: '76561197960265736',
    offer_id: '7310000001',
    amount: 12.34,
    amount_currency: 'usd',
    ...(status === 'hold' ? { hold_end_date: '2026-10-13T10:00:12.512Z' } : {}),
    ...(status === 'failed' || status === 'canceled' ? { fail_reason: status === 'failed' ? 'platform_error' : 'canceled_by_user' } : {}),
    ...extra,
  };
}

function purchasePayload(purchaseId: number, status: string) {
  return {
    status,
    purchase_id: purchaseId,
    trade_date: '2026-10-06T10:00:12.512Z',
    merchant_tx_id: `pur-${purchaseId}`,
    asset_id: '38291039123',
    offer_id: '7310000099',
    amount: 3.5,
    amount_currency: 'usd',
    ...(status === 'failed' ? { fail_reason: 'provider_unavailable' } : {}),
  };
}

async function emit(e: Partial<WebhookEventInput> & Pick<WebhookEventInput, 'kind' | 'recordId' | 'status' | 'payload'>, merchantId = m.id) {
  return gw.ctx.db.transaction().execute((trx) => enqueueWebhook(trx, { merchantId, ...e }));
}

async function deliveries(status?: string) {
  const res = await gw.admin('GET', `/merchants/${m.id}/webhook-deliveries?limit=500${status ? `&status=${status}` : ''}`);
  expect(res.status).toBe(200);
  return res.body.data as any[];
}

async function event(id: number) {
  return (await deliveries()).find((e) => e.id === id);
}

const byRecord = (path: string, field: string, id: number) => rx.on(path).filter((r) => r.body?.[field] === id);

describe('deposit and purchase webhooks', () => {
  it('delivers every deposit status with both signatures verifiable, the spec body and the headers', async () => {
    const statuses = ['hold', 'completed', 'failed', 'canceled', 'reverted'];
    const ids: number[] = [];
    for (const status of statuses) {
      const id = nextRecord++;
      ids.push(id);
      expect(await emit({ kind: 'deposit', recordId: id, status, payload: depositPayload(id, status) })).toBeGreaterThan(0);
    }
    await eventually(async () => ids.every((id) => byRecord('/merchant-hook', 'trade_id', id).length === 1));
    for (const [i, id] of ids.entries()) {
      const [r] = byRecord('/merchant-hook', 'trade_id', id);
      expect(r!.body).toEqual({ sign: expect.any(String), ...depositPayload(id, statuses[i]!) });
      expect('purchase_id' in r!.body).toBe(false);
      expect(Number.isInteger(r!.body.trade_id)).toBe(true);
      expect(verifySpecSign(r!.body, m.webhook_secret)).toBe(true);
      expect(verifyStandard(r!, m.webhook_secret)).toBe(true);
      // Another key: one character of the key part changed (appending after standard base64's '=' padding
      // would decode to the same key).
      const other = m.webhook_secret.slice(0, 10) + (m.webhook_secret[10] === 'A' ? 'B' : 'A') + m.webhook_secret.slice(11);
      expect(verifyStandard(r!, other)).toBe(false);
      expect(r!.headers['content-type']).toBe('application/json');
      expect(r!.headers['user-agent']).toBe('SkinGateway-Webhooks/1');
      expect(r!.headers['webhook-id']).toMatch(/^evt_\d+$/);
      expect(Buffer.byteLength(r!.raw)).toBeLessThan(4096);
    }
    const hold = byRecord('/merchant-hook', 'trade_id', ids[0]!)[0]!.body;
    expect(hold.hold_end_date).toBe('2026-10-13T10:00:12.512Z');
    await eventually(async () => (await deliveries('delivered')).filter((e) => ids.includes(e.record_id)).length === ids.length);
  });

  it('delivers purchase statuses, signed over purchase_id', async () => {
    const statuses = ['active', 'hold', 'completed', 'failed', 'canceled', 'reverted'];
    const ids = statuses.map(() => nextRecord++);
    for (const [i, id] of ids.entries()) await emit({ kind: 'purchase', recordId: id, status: statuses[i]!, payload: purchasePayload(id, statuses[i]!) });
    await eventually(async () => ids.every((id) => byRecord('/merchant-hook', 'purchase_id', id).length === 1));
    for (const [i, id] of ids.entries()) {
      const [r] = byRecord('/merchant-hook', 'purchase_id', id);
      expect(r!.body).toEqual({ sign: expect.any(String), ...purchasePayload(id, statuses[i]!) });
      expect(verifySpecSign(r!.body, m.webhook_secret)).toBe(true);
      expect(verifyStandard(r!, m.webhook_secret)).toBe(true);
    }
  });

  it('result_url overrides the merchant webhook_url; no target at all queues nothing', async () => {
    const id = nextRecord++;
    await emit({ kind: 'deposit', recordId: id, status: 'completed', resultUrl: rx.url('/result-url'), payload: depositPayload(id, 'completed') });
    await eventually(async () => byRecord('/result-url', 'trade_id', id).length === 1);
    expect(byRecord('/merchant-hook', 'trade_id', id)).toHaveLength(0);

    const bare = await gw.createMerchant({ name: 'No webhook' });
    const none = nextRecord++;
    expect(await emit({ kind: 'deposit', recordId: none, status: 'completed', payload: depositPayload(none, 'completed') }, bare.id)).toBeNull();
    const res = await gw.admin('GET', `/merchants/${bare.id}/webhook-deliveries`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it('signs with the merchant current secret at send time', async () => {
    const other = await gw.createMerchant({ name: 'Rotating secret', webhook_url: rx.url('/rotating') });
    const rotated = await gw.admin('POST', `/merchants/${other.id}/rotate-webhook-secret`);
    const secret = rotated.body.data.webhook_secret as string;
    const id = nextRecord++;
    await emit({ kind: 'purchase', recordId: id, status: 'completed', payload: purchasePayload(id, 'completed') }, other.id);
    const r = await eventually(async () => rx.on('/rotating')[0]);
    expect(verifySpecSign(r.body, secret)).toBe(true);
    expect(verifyStandard(r, secret)).toBe(true);
    expect(verifySpecSign(r.body, other.webhook_secret)).toBe(false);
  });
});

describe('retries', () => {
  it('500 then 200: retried, delivered once acknowledged, attempts recorded, same webhook-id', async () => {
    rx.respond = (r, n) => (r.path === '/flaky' && n === 0 ? { status: 500, body: 'boom' } : { status: 200 });
    const id = nextRecord++;
    const eventId = await emit({ kind: 'deposit', recordId: id, status: 'completed', resultUrl: rx.url('/flaky'), payload: depositPayload(id, 'completed') });
    const ev = await eventually(async () => {
      const e = await event(eventId!);
      return e?.state === 'delivered' ? e : undefined;
    });
    const got = rx.on('/flaky');
    expect(got).toHaveLength(2);
    expect(got[0]!.headers['webhook-id']).toBe(`evt_${eventId}`);
    expect(got[1]!.headers['webhook-id']).toBe(`evt_${eventId}`);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(850); // schedule entry 1 = 1 s (−10% jitter)
    expect(ev.attempt_count).toBe(2);
    expect(ev.attempts.map((a: any) => a.status_code)).toEqual([500, 200]);
    expect(ev.attempts[0]).toMatchObject({ attempt: 1, response_excerpt: 'boom', target_url: rx.url('/flaky') });
    expect(ev.attempts[0].latency_ms).toBeGreaterThanOrEqual(0);
    expect(typeof ev.attempts[0].attempted_at).toBe('string');
    // nothing more arrives once acknowledged
    await new Promise((r) => setTimeout(r, 1500));
    expect(rx.on('/flaky')).toHaveLength(2);
  });

  it('a receiver that is down and comes back gets the event', async () => {
    const port = await freePort();
    const id = nextRecord++;
    const eventId = await emit({ kind: 'deposit', recordId: id, status: 'hold', resultUrl: `http://127.0.0.1:${port}/back`, payload: depositPayload(id, 'hold') });
    const first = await eventually(async () => (await event(eventId!))?.attempts[0]);
    expect(first.status_code).toBeNull();
    expect(first.error).toMatch(/ECONNREFUSED/);
    const back = await startReceiver(port);
    try {
      await eventually(async () => back.received.length === 1);
      await eventually(async () => (await event(eventId!))?.state === 'delivered');
      expect(verifySpecSign(back.received[0]!.body, m.webhook_secret)).toBe(true);
    } finally {
      await back.close();
    }
  });

  it('a receiver that hangs past the timeout is a failed attempt, then retried', async () => {
    rx.respond = (r, n) => (r.path === '/hang' && n === 0 ? 'hang' : { status: 200 });
    const id = nextRecord++;
    const eventId = await emit({ kind: 'purchase', recordId: id, status: 'active', resultUrl: rx.url('/hang'), payload: purchasePayload(id, 'active') });
    const ev = await eventually(async () => {
      const e = await event(eventId!);
      return e?.state === 'delivered' ? e : undefined;
    });
    expect(ev.attempts[0].error).toBe('timeout after 500 ms');
    expect(ev.attempts[0].status_code).toBeNull();
    expect(ev.attempts[0].latency_ms).toBeGreaterThanOrEqual(450);
    expect(ev.attempts[1].status_code).toBe(200);
  });

  it('honours Retry-After on 429', async () => {
    rx.respond = (r, n) => (r.path === '/busy' && n === 0 ? { status: 429, headers: { 'retry-after': '3' } } : { status: 200 });
    const id = nextRecord++;
    const eventId = await emit({ kind: 'deposit', recordId: id, status: 'completed', resultUrl: rx.url('/busy'), payload: depositPayload(id, 'completed') });
    await eventually(async () => (await event(eventId!))?.state === 'delivered');
    const got = rx.on('/busy');
    expect(got).toHaveLength(2);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(2900); // not the schedule's 1 s
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    rx.respond = (r) => (r.path === '/moved' ? { status: 302, headers: { location: rx.url('/elsewhere') } } : { status: 200 });
    const id = nextRecord++;
    const eventId = await emit({ kind: 'deposit', recordId: id, status: 'completed', resultUrl: rx.url('/moved'), payload: depositPayload(id, 'completed') });
    const ev = await eventually(async () => {
      const e = await event(eventId!);
      return e?.state === 'exhausted' ? e : undefined;
    });
    expect(ev.attempts.map((a: any) => a.status_code)).toEqual([302, 302, 302]);
    expect(ev.attempts[0].error).toMatch(/redirect 302 not followed/);
    expect(rx.on('/elsewhere')).toHaveLength(0);
  });

  it('exhausted after the schedule; redelivery queues exactly one more attempt, also for delivered events', async () => {
    let down = true;
    rx.respond = (r) => (r.path === '/down' && down ? { status: 503, body: 'x'.repeat(5000) } : { status: 200 });
    const id = nextRecord++;
    const eventId = await emit({ kind: 'purchase', recordId: id, status: 'failed', resultUrl: rx.url('/down'), payload: purchasePayload(id, 'failed') });
    const ev = await eventually(async () => {
      const e = await event(eventId!);
      return e?.state === 'exhausted' ? e : undefined;
    });
    expect(ev.attempt_count).toBe(3); // WEBHOOK_RETRY_SCHEDULE has 3 entries
    expect(ev.attempts).toHaveLength(3);
    expect(ev.attempts[0].response_excerpt.length).toBe(1024); // excerpt only
    expect((await deliveries('exhausted')).some((e) => e.id === eventId)).toBe(true);
    expect((await deliveries('pending')).some((e) => e.id === eventId)).toBe(false);

    // redeliver while still failing: one attempt, then exhausted again
    let res = await gw.admin('POST', `/webhook-deliveries/${eventId}/redeliver`);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ id: eventId, state: 'pending' });
    await eventually(async () => (await event(eventId!))?.attempt_count === 4 && (await event(eventId!))?.state === 'exhausted');
    await new Promise((r) => setTimeout(r, 1500));
    expect((await event(eventId!)).attempt_count).toBe(4);

    down = false;
    res = await gw.admin('POST', `/webhook-deliveries/${eventId}/redeliver`);
    expect(res.status).toBe(202);
    const delivered = await eventually(async () => {
      const e = await event(eventId!);
      return e?.state === 'delivered' ? e : undefined;
    });
    expect(delivered.attempts.map((a: any) => a.status_code)).toEqual([503, 503, 503, 503, 200]);

    // a delivered event can be replayed too (same webhook-id: receivers deduplicate)
    res = await gw.admin('POST', `/webhook-deliveries/${eventId}/redeliver`);
    expect(res.status).toBe(202);
    await eventually(async () => (await event(eventId!))?.attempt_count === 6 && (await event(eventId!))?.state === 'delivered');
    const got = rx.on('/down');
    expect(got.at(-1)!.headers['webhook-id']).toBe(`evt_${eventId}`);
    expect(got.at(-1)!.body).toEqual(got[0]!.body);
  });

  it('keeps the order of one record: a completed never overtakes a hold being retried', async () => {
    rx.respond = (r, n) => (r.path === '/ordered' && n === 0 ? { status: 500 } : { status: 200 });
    const id = nextRecord++;
    await emit({ kind: 'deposit', recordId: id, status: 'hold', resultUrl: rx.url('/ordered'), payload: depositPayload(id, 'hold') });
    await emit({ kind: 'deposit', recordId: id, status: 'completed', resultUrl: rx.url('/ordered'), payload: depositPayload(id, 'completed') });
    await eventually(async () => rx.on('/ordered').length === 3, 15_000);
    expect(rx.on('/ordered').map((r) => r.body.status)).toEqual(['hold', 'hold', 'completed']);
  });

  it('refuses an oversized payload instead of sending a broken body', async () => {
    const id = nextRecord++;
    const eventId = await emit({ kind: 'deposit', recordId: id, status: 'completed', resultUrl: rx.url('/huge'), payload: depositPayload(id, 'completed', { merchant_tx_id: 'x'.repeat(5000) }) });
    const ev = await eventually(async () => {
      const e = await event(eventId!);
      return e?.state === 'exhausted' ? e : undefined;
    });
    expect(ev.attempts[0].error).toMatch(/payload refused: body of \d+ bytes exceeds the 4096-byte limit/);
    expect(rx.on('/huge')).toHaveLength(0);
  });
});

describe('admin API', () => {
  it('404 for an unknown merchant or event; 400 for a bad status filter', async () => {
    expect((await gw.admin('GET', '/merchants/999999/webhook-deliveries')).status).toBe(404);
    expect((await gw.admin('POST', '/webhook-deliveries/999999/redeliver')).status).toBe(404);
    const bad = await gw.admin('GET', `/merchants/${m.id}/webhook-deliveries?status=lost`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('validation error');
    expect((await gw.admin('POST', '/webhook-deliveries/abc/redeliver')).status).toBe(400);
  });

  it('pages with limit and offset, newest first; the service is on ctx.webhooks', async () => {
    const all = await gw.ctx.webhooks.listDeliveries(m.id, { limit: 500 });
    const page = await gw.ctx.webhooks.listDeliveries(m.id, { limit: 2, offset: 1 });
    expect(page.map((e) => e.id)).toEqual(all.slice(1, 3).map((e) => e.id));
    expect(all[0]!.id).toBeGreaterThan(all[1]!.id);
  });
});
