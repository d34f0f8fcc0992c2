// Webhook delivery: the dispatcher (dispatcher.ts) claims, sends and settles; this service holds
// the rest: the delivery log, redelivery, the sweeper (lost attempts) and retention.
//
// An attempt is claimed with a lease (WEBHOOK_TIMEOUT_MS + WEBHOOK_LEASE_MARGIN_MS): the whole
// attempt, name lookup included, fits in the timeout, so a lease that runs out means the instance
// died during the attempt. The sweeper (a periodic job) records such attempts as `interrupted`
// and schedules the retry. Settling checks that the attempt is still the open one and whether a
// redelivery came in meanwhile (redeliver_generation), so neither a late result nor a redelivery
// is lost.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { pacer } from '../../jobs/pacing.js';
import type { Db, Trx } from '../../db/database.js';
import { isoUtc } from '../../domain/clock.js';
import { notFound } from '../../domain/errors.js';
import { webhookId } from './signing.js';
import { systemLookup, type Lookup } from './target.js';
import { createDispatcher } from './dispatcher.js';
import { failure, INTERRUPTED_ERROR, outcomeOf, USER_AGENT } from './delivery.js';
import * as repo from './webhook-repo.js';
import type { WebhookEventRow } from './webhook-repo.js';
import type { WebhookState } from '../../db/tables/webhooks.js';

export { INTERRUPTED_ERROR, USER_AGENT };

/** Lost attempts the sweeper settles per run (the next run takes the rest). */
const SWEEP_BATCH = 500;
/** Events deleted per statement when pruning (short transactions). */
const PRUNE_BATCH = 1000;

export interface ListDeliveriesOptions {
  limit?: number;
  offset?: number;
  status?: WebhookState;
}

const ts = (d: Date | string | null) => (d === null ? null : isoUtc(d));

function present(ev: WebhookEventRow, attempts: repo.WebhookAttemptRow[]) {
  return {
    id: ev.id,
    webhook_id: ev.webhook_id ?? webhookId(ev.id),
    merchant_id: ev.merchant_id,
    kind: ev.kind,
    record_id: ev.record_id,
    status: ev.status,
    state: ev.state,
    target_url: ev.target_url,
    attempt_count: ev.attempts,
    next_attempt_at: ev.state === 'pending' ? ts(ev.next_attempt_at) : null,
    last_attempt_at: ts(ev.last_attempt_at),
    last_status_code: ev.last_status_code,
    last_error: ev.last_error,
    delivered_at: ts(ev.delivered_at),
    created_at: ts(ev.created_at),
    payload: ev.payload,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      attempted_at: ts(a.attempted_at),
      target_url: a.target_url,
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      error: a.error,
      response_excerpt: a.response_excerpt,
    })),
  };
}

export type WebhookDelivery = ReturnType<typeof present>;

export interface WebhookServiceOptions {
  /** Name resolution at send time (the system resolver by default); bounded by WEBHOOK_TIMEOUT_MS. */
  lookup?: Lookup;
}

/** What webhooks need of merchants: whether one exists (the assembly passes the merchant service). */
export interface WebhookMerchants {
  exists(merchantId: number): Promise<boolean>;
}

export interface WebhookDeps {
  db: Db;
  merchants: WebhookMerchants;
  log: Logger;
  config: Pick<
    Config,
    | 'webhookAllowPrivate'
    | 'webhookLeaseMarginMs'
    | 'webhookRetentionDays'
    | 'webhookRetrySchedule'
    | 'webhookTimeoutMs'
    | 'webhookConcurrency'
    | 'webhookConcurrencyPerMerchant'
    | 'webhookPollMs'
  > & { retention: Pick<Config['retention'], 'busyPercent'> };
}

export function createWebhookService(deps: WebhookDeps, opts: WebhookServiceOptions = {}) {
  const { db, log, config, merchants } = deps;
  const dispatcher = createDispatcher({ db, log, config, lookup: opts.lookup ?? systemLookup });

  /**
   * One attempt of the event now, if it is due and first in its record's line (the dispatcher
   * does this in batches; tests and the CLI drive single events). 'skipped': not claimable.
   */
  async function deliver(eventId: number): Promise<WebhookState | 'skipped'> {
    return (await dispatcher.deliverOne(eventId))?.state ?? 'skipped';
  }

  /**
   * The safety net: attempts whose lease ran out without a result (the instance died during them)
   * are recorded as interrupted and retried on the schedule. Returns the event ids settled.
   */
  async function sweep(): Promise<number[]> {
    const lost = await repo.expiredLeases(db, SWEEP_BATCH);
    if (lost.length === 0) return [];
    for (const ev of lost) log.warn({ eventId: ev.id, attempt: ev.attempts }, 'webhook attempt lost: lease expired without a result');
    const settled = await dispatcher.settleNow(lost.map((ev) => outcomeOf(ev, failure(INTERRUPTED_ERROR), 'retry', config.webhookRetrySchedule)));
    return settled.map((s) => Number(s.id));
  }

  /**
   * Deletes delivered events (with their attempts) delivered more than WEBHOOK_RETENTION_DAYS ago,
   * paced by RETENTION_BUSY_PERCENT (src/jobs/pacing.ts); stops between batches when `signal` aborts.
   */
  async function prune(days = config.webhookRetentionDays, signal?: AbortSignal): Promise<number> {
    if (days <= 0) return 0;
    const pace = pacer(config.retention.busyPercent, signal);
    let total = 0;
    for (;;) {
      const n = await repo.pruneDelivered(db, days, PRUNE_BATCH);
      total += n;
      if (n < PRUNE_BATCH || !(await pace.next())) return total;
    }
  }

  async function listDeliveries(merchantId: number, opts: ListDeliveriesOptions = {}) {
    if (!(await merchants.exists(merchantId))) throw notFound();
    const events = await repo.listEvents(db, merchantId, { limit: opts.limit ?? 50, offset: opts.offset ?? 0, status: opts.status });
    const attempts = await repo.attemptsOf(db, events.map((e) => e.id));
    return events.map((e) => present(e, attempts.filter((a) => a.event_id === e.id)));
  }

  async function readDelivery(from: Db | Trx, eventId: number) {
    const ev = await repo.findEvent(from, eventId);
    if (!ev) throw notFound();
    return present(ev, await repo.attemptsOf(from, [ev.id]));
  }

  const getDelivery = (eventId: number) => readDelivery(db, eventId);

  /**
   * Queues one more attempt now, whatever the state: a delivered or exhausted event reopens for
   * exactly one attempt; a pending one is pulled forward. Same webhook-id (receivers deduplicate).
   * During an attempt in flight, the attempt asked for comes after it (the generation bump tells
   * its settle not to close the event).
   */
  async function redeliver(eventId: number) {
    // The answer is the event as reopened (read in the same transaction): the dispatcher, woken
    // after the commit, may have made and settled the attempt before a later read.
    const reopened = await db.transaction().execute(async (trx) => {
      const ev = await repo.lockEvent(trx, eventId);
      if (!ev) throw notFound();
      const currentMax = ev.max_attempts ?? config.webhookRetrySchedule.length;
      const max = ev.state === 'pending' ? Math.max(currentMax, ev.attempts + 1) : ev.attempts + 1;
      await repo.reopenEvent(trx, ev, max);
      return readDelivery(trx, eventId);
    });
    dispatcher.wake();
    return reopened;
  }

  /** The attempts of these events, by event then attempt (the events API shows one event's). */
  const attemptsOf = (eventIds: number[]) => repo.attemptsOf(db, eventIds);

  /** Records a dashboard test event as sent (one attempt, already settled): the events API lists it. */
  const recordTestEvent = (t: repo.SentTestEvent) => repo.recordTestEvent(db, t);

  return { deliver, listDeliveries, getDelivery, redeliver, sweep, prune, dispatcher, attemptsOf, recordTestEvent };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
