// The outbox promise: an event exists if and only if the change that caused it committed.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueWebhook, WEBHOOK_EVENTS_WRITE } from '../../src/modules/webhooks/outbox.js';
import { startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
});
afterAll(async () => gw?.stop());

async function counts(merchantId: number) {
  await gw.flushJobs();
  const events = await gw.ctx.db.selectFrom('webhook_events').select((eb) => eb.fn.countAll<number>().as('n')).where('merchant_id', '=', merchantId).executeTakeFirstOrThrow();
  const jobs = await sql<{ n: number }>`select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where t.identifier = 'webhook_deliver' and j.payload->>'event_id' in (select id::text from webhook_events where merchant_id = ${merchantId})`.execute(gw.ctx.db);
  return { events: Number(events.n), jobs: jobs.rows[0].n };
}

const payload = (id: number) => ({ status: 'completed', trade_id: id, trade_date: new Date().toISOString(), merchant_tx_id: 'tx', platform_id: '76561197960265729', offer_id: '1', amount: 1, amount_currency: 'usd' });

describe('transactional outbox', () => {
  it('a rolled-back change leaves neither an event nor a job', async () => {
    const m = await gw.createMerchant({ webhook_url: 'http://127.0.0.1:9/hook' });
    await expect(
      gw.ctx.db.transaction().execute(async (trx) => {
        await enqueueWebhook(trx, { merchantId: m.id, kind: 'deposit', recordId: 1, status: 'completed', payload: payload(1) });
        throw new Error('the status change failed after the event was written');
      }),
    ).rejects.toThrow(/status change failed/);
    expect(await counts(m.id)).toEqual({ events: 0, jobs: 0 });
  });

  it('an empty result_url falls back to the merchant webhook_url; neither set: no event', async () => {
    const m = await gw.createMerchant({ webhook_url: 'http://127.0.0.1:9/merchant' });
    const bare = await gw.createMerchant({});
    const emit = (merchantId: number, resultUrl: string | null) =>
      gw.ctx.db.transaction().execute((trx) => enqueueWebhook(trx, { merchantId, kind: 'deposit', recordId: 3, status: 'completed', resultUrl, payload: payload(3) }));
    const id = await emit(m.id, '');
    expect((await gw.ctx.webhooks.getDelivery(id!)).target_url).toBe('http://127.0.0.1:9/merchant');
    expect(await emit(bare.id, null)).toBeNull();
    expect(await emit(bare.id, '')).toBeNull();
    const own = await emit(bare.id, 'http://127.0.0.1:9/own');
    expect((await gw.ctx.webhooks.getDelivery(own!)).target_url).toBe('http://127.0.0.1:9/own');
  });

  // No job any more (the dispatcher claims events; a job's add_job would NOTIFY inside the
  // business transaction): the event alone, and a commit tap fired after the commit (never before
  // it, never after a rollback) so that this instance's dispatcher is woken.
  it('a committed change leaves exactly one event, no job, and fires the after-commit tap once it committed', async () => {
    const m = await gw.createMerchant({ webhook_url: 'http://127.0.0.1:9/hook' });
    let fired = 0;
    const untap = gw.ctx.commitTaps.on(WEBHOOK_EVENTS_WRITE, () => fired++);
    try {
      const id = await gw.ctx.db.transaction().execute(async (trx) => {
        const eventId = await enqueueWebhook(trx, { merchantId: m.id, kind: 'deposit', recordId: 2, status: 'completed', payload: payload(2) });
        expect(fired).toBe(0); // not before the commit
        return eventId;
      });
      expect(id).toBeGreaterThan(0);
      expect(fired).toBe(1);
      expect(await counts(m.id)).toEqual({ events: 1, jobs: 0 });
      await gw.ctx.db.transaction().execute(async (trx) => {
        await enqueueWebhook(trx, { merchantId: m.id, kind: 'deposit', recordId: 3, status: 'completed', payload: payload(3) });
        throw new Error('roll back');
      }).catch(() => undefined);
      expect(fired).toBe(1); // a rolled-back event wakes nobody
    } finally {
      untap();
    }
  });
});
