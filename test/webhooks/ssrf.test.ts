// SSRF protection with WEBHOOK_ALLOW_PRIVATE=false (production default): refused when the URL is
// set (merchant webhook_url) and again when sending (result_url, or DNS changed since).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { enqueueWebhook } from '../../src/modules/webhooks/outbox.js';
import { assertWebhookTarget } from '../../src/modules/webhooks/target.js';
import { startReceiver, type Receiver } from './receiver.js';

let gw: TestGateway;
let rx: Receiver;

beforeAll(async () => {
  rx = await startReceiver();
  gw = await startTestGateway({ WEBHOOK_ALLOW_PRIVATE: 'false', WEBHOOK_RETRY_SCHEDULE: '0,1', WEBHOOK_TIMEOUT_MS: '500' });
});
afterAll(async () => {
  await gw?.stop();
  await rx?.close();
});

describe('webhook target safety (WEBHOOK_ALLOW_PRIVATE=false)', () => {
  it.each([
    'http://127.0.0.1/hook',
    'http://169.254.169.254/',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.8:8080/x',
    'http://192.168.1.10/x',
    'http://100.64.1.1/x',
    'http://[::1]/x',
    'http://[::ffff:127.0.0.1]/x',
    'http://[fd00::1]/x',
    'http://0.0.0.0/x',
    'http://2130706433/x',
    'http://localhost/x',
  ])('merchant create with webhook_url %s → 400 validation error', async (url) => {
    const res = await gw.admin('POST', '/merchants', { name: 'SSRF', webhook_url: url });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('validation error');
    expect(res.body.data[0]).toMatchObject({ field: 'webhook_url', code: 'url' });
  });

  it('non-http(s) schemes are refused by syntax', async () => {
    const res = await gw.admin('POST', '/merchants', { name: 'SSRF', webhook_url: 'file:///etc/passwd' });
    expect(res.status).toBe(400);
    await expect(assertWebhookTarget('gopher://x/', true, 'result_url')).rejects.toMatchObject({ kind: 'validation' });
  });

  it('merchant update is checked too; a public address is accepted', async () => {
    const ok = await gw.createMerchant({ name: 'Public', webhook_url: 'https://93.184.216.34/hook' });
    expect(ok.webhook_url).toBe('https://93.184.216.34/hook');
    const res = await gw.admin('PATCH', `/merchants/${ok.id}`, { webhook_url: 'http://169.254.169.254/' });
    expect(res.status).toBe(400);
    expect(res.body.data[0]).toMatchObject({ field: 'webhook_url', code: 'url' });
    expect((await gw.admin('PATCH', `/merchants/${ok.id}`, { webhook_url: null })).status).toBe(200);
  });

  it('assertWebhookTarget reports on the given field (result_url)', async () => {
    await expect(assertWebhookTarget('http://127.0.0.1:9/cb', false, 'CreateIntentRequest.result_url')).rejects.toMatchObject({
      kind: 'validation',
      data: [{ field: 'CreateIntentRequest.result_url', code: 'url' }],
    });
    await expect(assertWebhookTarget('http://127.0.0.1:9/cb', true, 'result_url')).resolves.toBeUndefined();
  });

  it('refuses at delivery time too: nothing reaches a loopback receiver, the refusal is logged', async () => {
    const m = await gw.createMerchant({ name: 'Delivery-time check' });
    const eventId = await gw.ctx.db.transaction().execute((trx) =>
      enqueueWebhook(trx, {
        merchantId: m.id,
        kind: 'deposit',
        recordId: 1,
        status: 'completed',
        resultUrl: rx.url('/internal'),
        payload: { status: 'completed', trade_id: 1, merchant_tx_id: 'x', amount: 1, amount_currency: 'usd' },
      }),
    );
    const ev = await eventually(async () => {
      const [e] = await gw.ctx.webhooks.listDeliveries(m.id, { status: 'exhausted' });
      return e;
    });
    expect(ev.id).toBe(eventId);
    expect(ev.attempts).toHaveLength(2);
    expect(ev.attempts[0]!.error).toMatch(/target refused: .*loopback/);
    expect(ev.attempts[0]!.status_code).toBeNull();
    expect(rx.received).toHaveLength(0);
  });
});
