// At-least-once across restarts: the retry sequence lives in the database (event row + job),
// so a gateway stopped between attempts is replaced by another that finishes the delivery.
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { enqueueWebhook } from '../../src/modules/webhooks/outbox.js';
import { startReceiver, verifySpecSign, verifyStandard, type Receiver } from './receiver.js';

const ENV = { WEBHOOK_RETRY_SCHEDULE: '0,2,2', WEBHOOK_TIMEOUT_MS: '500' };
let gws: TestGateway[] = [];
let rx: Receiver | undefined;

afterAll(async () => {
  for (const g of gws) await g.stop();
  await rx?.close();
});

describe('gateway restart in the middle of a retry sequence', () => {
  it('the next instance delivers the event', async () => {
    let failing = true;
    rx = await startReceiver(0, () => (failing ? { status: 500 } : { status: 200 }));
    const first = await startTestGateway(ENV);
    gws.push(first);
    const m = await first.createMerchant({ name: 'Restart', webhook_url: rx.url('/hook') });
    const eventId = await first.ctx.db.transaction().execute((trx) =>
      enqueueWebhook(trx, {
        merchantId: m.id,
        kind: 'purchase',
        recordId: 77,
        status: 'completed',
        payload: { status: 'completed', purchase_id: 77, trade_date: '2026-10-06T10:00:12.512Z', merchant_tx_id: 'p-77', asset_id: '1', offer_id: '2', amount: 1.25, amount_currency: 'usd' },
      }),
    );
    await eventually(async () => rx!.received.length === 1, 60_000);
    await eventually(async () => (await first.ctx.webhooks.getDelivery(eventId!)).attempts.length === 1, 60_000);
    await first.stop();
    gws = [];
    failing = false;

    const second = await startTestGateway(ENV, { databaseUrl: first.databaseUrl });
    gws.push(second);
    const ev = await eventually(async () => {
      const e = await second.ctx.webhooks.getDelivery(eventId!);
      return e.state === 'delivered' ? e : undefined;
    }, 60_000);
    expect(ev.attempts.map((a) => a.status_code)).toEqual([500, 200]);
    expect(rx.received).toHaveLength(2);
    const last = rx.received[1]!;
    expect(last.headers['webhook-id']).toBe(`evt_${eventId}`);
    expect(verifySpecSign(last.body, m.webhook_secret)).toBe(true);
    expect(verifyStandard(last, m.webhook_secret)).toBe(true);
  });
});
