// Webhook delivery: one attempt per job run, retries scheduled by us on WEBHOOK_RETRY_SCHEDULE,
// per-record ordering, the delivery log, and redelivery. Jobs are keyed per event
// (`webhook_event:<id>`), so an event has at most one waiting job whatever re-adds it.
//
// An attempt is claimed with a lease (WEBHOOK_TIMEOUT_MS + WEBHOOK_LEASE_MARGIN_MS): the whole
// attempt, name lookup included, fits in the timeout, so a lease that runs out means the worker
// died during the attempt. The sweeper (a periodic job) re-queues such events, and events left
// without any job; the delivery then records the lost attempt as `interrupted` and retries on the
// schedule. Settling checks that the attempt is still the open one and whether a redelivery came
// in meanwhile (redeliver_generation), so neither a late result nor a redelivery is lost.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { isoUtc } from '../../domain/clock.js';
import { notFound } from '../../domain/errors.js';
import { findById as findMerchant } from '../merchants/merchant-repo.js';
import { sendWebhook, type SendResult } from './http-sender.js';
import { isAcknowledged, nextRetry } from './schedule.js';
import { buildWebhookBody, standardSignature, WebhookPayloadError, webhookId } from './signing.js';
import { resolveTarget, systemLookup, TargetLookupTimeoutError, TargetRefusedError, type Lookup } from './target.js';
import { scheduleDelivery } from './webhook-jobs.js';
import * as repo from './webhook-repo.js';
import type { WebhookEventRow } from './webhook-repo.js';
import type { WebhookState } from '../../db/tables/webhooks.js';

export const USER_AGENT = 'SkinGateway-Webhooks/1';

/** How long a later event waits before re-checking an earlier one of its record (it is also woken). */
const BLOCKED_RECHECK_MS = 5_000;
/** An earlier event overdue by this much has lost its job (should not happen): re-add it. */
const STUCK_AFTER_MS = 60_000;
/** Events the sweeper re-queues per run (the next run takes the rest). */
const SWEEP_BATCH = 500;
/** Events deleted per statement when pruning (short transactions). */
const PRUNE_BATCH = 1000;
export const INTERRUPTED_ERROR = 'interrupted: no result within the attempt lease (the worker stopped during the attempt?)';

export interface ListDeliveriesOptions {
  limit?: number;
  offset?: number;
  status?: WebhookState;
}

const ts = (d: Date | string | null) => (d === null ? null : isoUtc(d));

function present(ev: WebhookEventRow, attempts: repo.WebhookAttemptRow[]) {
  return {
    id: ev.id,
    webhook_id: webhookId(ev.id),
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

export interface WebhookDeps {
  db: Db;
  log: Logger;
  config: Pick<Config, 'webhookAllowPrivate' | 'webhookLeaseMarginMs' | 'webhookRetentionDays' | 'webhookRetrySchedule' | 'webhookTimeoutMs'>;
}

export function createWebhookService(deps: WebhookDeps, opts: WebhookServiceOptions = {}) {
  const { db, log, config } = deps;
  const lookup = opts.lookup ?? systemLookup;
  const leaseMs = () => config.webhookTimeoutMs + config.webhookLeaseMarginMs;

  /**
   * Records attempt `attempt` of `claimed` and decides: delivered, retry later, or exhausted; wakes
   * the next event of the record when settled. Only the attempt in flight settles the event: a
   * result arriving after its attempt was given up (lease run out) is only logged. A redelivery
   * requested during the attempt keeps the event pending for the attempt it asked for.
   */
  async function settle(claimed: WebhookEventRow, attempt: number, result: SendResult, retryable: boolean): Promise<WebhookState | 'skipped'> {
    return db.transaction().execute(async (trx) => {
      const ev = await repo.lockEvent(trx, claimed.id);
      if (!ev) return 'skipped';
      const recorded = await repo.insertAttempt(trx, {
        event_id: ev.id,
        attempt,
        target_url: ev.target_url,
        status_code: result.statusCode,
        latency_ms: result.latencyMs,
        error: result.error,
        response_excerpt: result.excerpt,
      });
      if (!recorded || ev.state !== 'pending' || ev.attempts !== attempt || ev.lease_until === null) {
        log.warn({ eventId: ev.id, attempt, statusCode: result.statusCode, error: result.error }, 'webhook attempt settled after it was given up: result not applied');
        return 'skipped';
      }
      const acknowledged = isAcknowledged(result.statusCode);
      const common = { last_status_code: result.statusCode, last_error: result.error, acknowledged };
      if (ev.redeliver_generation !== claimed.redeliver_generation) {
        // Redelivered while this attempt was in flight: the operator asked for one more attempt now.
        await repo.settleEvent(trx, ev.id, { state: 'pending', next_attempt_at: null, ...common });
        await scheduleDelivery(trx, ev);
        return 'pending';
      }
      let state: WebhookState;
      if (acknowledged) {
        state = 'delivered';
        await repo.settleEvent(trx, ev.id, { state, next_attempt_at: null, ...common });
      } else {
        const decision = retryable
          ? nextRetry({
              schedule: config.webhookRetrySchedule,
              attemptsDone: attempt,
              maxAttempts: ev.max_attempts,
              statusCode: result.statusCode,
              retryAfterHeader: result.headers['retry-after'],
              nowMs: Date.now(),
            })
          : ({ exhausted: true } as const);
        if (decision.exhausted) {
          state = 'exhausted';
          await repo.settleEvent(trx, ev.id, { state, next_attempt_at: null, ...common });
          log.warn({ eventId: ev.id, merchantId: ev.merchant_id, attempts: attempt, error: result.error, statusCode: result.statusCode }, 'webhook exhausted');
        } else {
          state = 'pending';
          const at = await repo.dbNowPlus(trx, decision.delayMs);
          await repo.settleEvent(trx, ev.id, { state, next_attempt_at: at, ...common });
          await scheduleDelivery(trx, ev, at);
        }
      }
      if (state !== 'pending') {
        // The next event of this record was waiting for this one: let it go now.
        const next = await repo.laterPending(trx, ev);
        if (next) await scheduleDelivery(trx, next, next.next_attempt_at ? new Date(Math.max(new Date(next.next_attempt_at).getTime(), Date.now())) : undefined);
      }
      return state;
    });
  }

  /** The job handler: at most one HTTP attempt for the event, if it is due and first in its record's line. */
  async function deliver(eventId: number): Promise<WebhookState | 'skipped'> {
    const ev = await repo.findEvent(db, eventId);
    if (!ev || ev.state !== 'pending') return 'skipped'; // settled meanwhile (a stale or duplicate job)
    const lease = await repo.leaseState(db, ev.id);
    if (lease.state === 'active') {
      // An attempt is in flight: come back when its lease ends (its settle wakes us if needed).
      await scheduleDelivery(db, ev, lease.until!, 'preserve_run_at');
      return 'skipped';
    }
    if (lease.state === 'expired') {
      // The attempt in flight was lost (its worker died): record it as failed, retry on the schedule.
      log.warn({ eventId: ev.id, attempt: ev.attempts }, 'webhook attempt lost: lease expired without a result');
      return settle(ev, ev.attempts, failure(INTERRUPTED_ERROR), true);
    }
    if (!(await repo.isDue(db, ev.id))) {
      if (ev.next_attempt_at) await scheduleDelivery(db, ev, new Date(ev.next_attempt_at), 'preserve_run_at');
      return 'skipped';
    }
    // Order within a record: an earlier pending event (e.g. a hold being retried) goes first. It
    // wakes this one when it settles; the re-check is only a safety net. claimAttempt checks again
    // in the statement that takes the attempt.
    const earlier = await repo.earlierPending(db, ev);
    if (earlier) {
      await recheckAfter(ev, earlier);
      return 'skipped';
    }
    const claimed = await repo.claimAttempt(db, ev.id, ev.attempts, leaseMs());
    if (!claimed) {
      // Another runner took this attempt, or an earlier event became pending again meanwhile.
      const again = await repo.earlierPending(db, ev);
      if (again) await recheckAfter(ev, again);
      return 'skipped';
    }
    // The attempt's deadline starts now and covers the name lookup too.
    const startedAt = performance.now();
    const attempt = claimed.attempts;

    const merchant = await findMerchant(db, ev.merchant_id);
    if (!merchant) return settle(claimed, attempt, failure('merchant not found'), false);
    let body: string;
    try {
      // Signed with the merchant's CURRENT secret: a rotation applies to pending retries too.
      body = buildWebhookBody(ev.kind, ev.record_id, ev.payload, merchant.webhook_secret).body;
    } catch (err) {
      if (!(err instanceof WebhookPayloadError)) throw err;
      log.error({ eventId: ev.id, merchantId: ev.merchant_id, err: err.message }, 'webhook payload refused');
      return settle(claimed, attempt, failure(`payload refused: ${err.message}`), false);
    }
    const timeoutMs = config.webhookTimeoutMs;
    let addresses;
    try {
      addresses = await resolveTarget(ev.target_url, config.webhookAllowPrivate, {
        lookup,
        timeoutMs: Math.max(0, startedAt + timeoutMs - performance.now()),
      });
    } catch (err) {
      if (err instanceof TargetLookupTimeoutError) {
        return settle(claimed, attempt, failure(`timeout after ${timeoutMs} ms (resolving ${err.host})`, startedAt), true);
      }
      if (!(err instanceof TargetRefusedError)) throw err;
      return settle(claimed, attempt, failure(`target refused: ${err.message}`, startedAt), true);
    }
    // The wire timestamp is real time (not the injectable clock): receivers compare it with theirs.
    const timestamp = Math.floor(Date.now() / 1000);
    const id = webhookId(ev.id);
    const result = await sendWebhook({
      url: ev.target_url,
      body,
      addresses,
      timeoutMs,
      startedAt,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': standardSignature(merchant.webhook_secret, id, timestamp, body),
      },
    });
    if (result.statusCode !== null && result.statusCode >= 300 && result.statusCode < 400 && !result.error) {
      result.error = `redirect ${result.statusCode} not followed${result.headers.location ? ` (location: ${String(result.headers.location).slice(0, 200)})` : ''}`;
    }
    return settle(claimed, attempt, result, true);
  }

  /** `ev` waits for `earlier` (same record): come back after it (it also wakes `ev` when it settles). */
  async function recheckAfter(ev: WebhookEventRow, earlier: WebhookEventRow): Promise<void> {
    const now = Date.now();
    const earlierAt = Math.max(
      earlier.next_attempt_at ? new Date(earlier.next_attempt_at).getTime() : now,
      earlier.lease_until ? new Date(earlier.lease_until).getTime() : 0,
    );
    if (earlierAt < now - STUCK_AFTER_MS) await scheduleDelivery(db, earlier);
    // preserve_run_at: a wake-up queued meanwhile (the earlier one just settled) is kept.
    await scheduleDelivery(db, ev, new Date(Math.max(earlierAt, now) + BLOCKED_RECHECK_MS), 'preserve_run_at');
  }

  /**
   * The safety net: re-queues pending events that nothing would move any more (an attempt whose
   * lease ran out, or no live job at all). Returns the event ids re-queued.
   */
  async function sweep(): Promise<number[]> {
    const ids = await repo.stalledEvents(db, leaseMs(), SWEEP_BATCH);
    for (const id of ids) await scheduleDelivery(db, { id });
    if (ids.length) log.warn({ eventIds: ids.slice(0, 20), count: ids.length }, 'webhook events re-queued by the sweeper');
    return ids;
  }

  /** Deletes delivered events (with their attempts) delivered more than WEBHOOK_RETENTION_DAYS ago. */
  async function prune(days = config.webhookRetentionDays): Promise<number> {
    if (days <= 0) return 0;
    let total = 0;
    for (;;) {
      const n = await repo.pruneDelivered(db, days, PRUNE_BATCH);
      total += n;
      if (n < PRUNE_BATCH) return total;
    }
  }

  async function listDeliveries(merchantId: number, opts: ListDeliveriesOptions = {}) {
    if (!(await findMerchant(db, merchantId))) throw notFound();
    const events = await repo.listEvents(db, merchantId, { limit: opts.limit ?? 50, offset: opts.offset ?? 0, status: opts.status });
    const attempts = await repo.attemptsOf(db, events.map((e) => e.id));
    return events.map((e) => present(e, attempts.filter((a) => a.event_id === e.id)));
  }

  async function getDelivery(eventId: number) {
    const ev = await repo.findEvent(db, eventId);
    if (!ev) throw notFound();
    return present(ev, await repo.attemptsOf(db, [ev.id]));
  }

  /**
   * Queues one more attempt now, whatever the state: a delivered or exhausted event reopens for
   * exactly one attempt; a pending one is pulled forward. Same webhook-id (receivers deduplicate).
   * During an attempt in flight, the attempt asked for comes after it (the generation bump tells
   * its settle not to close the event).
   */
  async function redeliver(eventId: number) {
    await db.transaction().execute(async (trx) => {
      const ev = await repo.lockEvent(trx, eventId);
      if (!ev) throw notFound();
      const currentMax = ev.max_attempts ?? config.webhookRetrySchedule.length;
      const max = ev.state === 'pending' ? Math.max(currentMax, ev.attempts + 1) : ev.attempts + 1;
      await repo.reopenEvent(trx, ev.id, max);
      await scheduleDelivery(trx, ev);
    });
    return getDelivery(eventId);
  }

  return { deliver, listDeliveries, getDelivery, redeliver, sweep, prune };
}

function failure(error: string, startedAt?: number): SendResult {
  return { statusCode: null, headers: {}, excerpt: null, error, latencyMs: startedAt === undefined ? 0 : Math.round(performance.now() - startedAt) };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
