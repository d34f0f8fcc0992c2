// Webhook delivery: one attempt per job run, retries scheduled by us on WEBHOOK_RETRY_SCHEDULE,
// per-record ordering, the delivery log, and redelivery. Jobs are keyed per event
// (`webhook_event:<id>`), so an event has at most one waiting job whatever re-adds it.
import type { BaseContext } from '../../context.js';
import { isoUtc } from '../../domain/clock.js';
import { notFound } from '../../http/errors.js';
import { findById as findMerchant } from '../merchants/merchant-repo.js';
import { sendWebhook, type SendResult } from './http-sender.js';
import { isAcknowledged, nextRetry } from './schedule.js';
import { buildWebhookBody, standardSignature, WebhookPayloadError, webhookId } from './signing.js';
import { resolveTarget, TargetRefusedError } from './target.js';
import { scheduleDelivery } from './webhook-jobs.js';
import * as repo from './webhook-repo.js';
import type { WebhookEventRow } from './webhook-repo.js';
import type { WebhookState } from './webhook-types.js';

export const USER_AGENT = 'SkinGateway-Webhooks/1';

/** How long a later event waits before re-checking an earlier one of its record (it is also woken). */
const BLOCKED_RECHECK_MS = 5_000;
/** An earlier event overdue by this much has lost its job (should not happen): re-add it. */
const STUCK_AFTER_MS = 60_000;

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

export function createWebhookService(base: BaseContext) {
  const { db, log } = base;

  /** Records the attempt and decides: delivered, retry later, or exhausted; wakes the next event when settled. */
  async function settle(ev: WebhookEventRow, attempt: number, result: SendResult, retryable: boolean): Promise<WebhookState> {
    return db.transaction().execute(async (trx) => {
      await repo.insertAttempt(trx, {
        event_id: ev.id,
        attempt,
        target_url: ev.target_url,
        status_code: result.statusCode,
        latency_ms: result.latencyMs,
        error: result.error,
        response_excerpt: result.excerpt,
      });
      const common = { last_status_code: result.statusCode, last_error: result.error };
      let state: WebhookState;
      if (isAcknowledged(result.statusCode)) {
        state = 'delivered';
        await repo.settleEvent(trx, ev.id, { state, next_attempt_at: null, ...common });
      } else {
        const decision = retryable
          ? nextRetry({
              schedule: base.config.webhookRetrySchedule,
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
    if (!(await repo.isDue(db, ev.id))) {
      if (ev.next_attempt_at) await scheduleDelivery(db, ev, new Date(ev.next_attempt_at));
      return 'skipped';
    }
    // Order within a record: an earlier pending event (e.g. a hold being retried) goes first. It
    // wakes this one when it settles; the re-check below is only a safety net.
    const earlier = await repo.earlierPending(db, ev);
    if (earlier) {
      const earlierAt = earlier.next_attempt_at ? new Date(earlier.next_attempt_at).getTime() : Date.now();
      if (earlierAt < Date.now() - STUCK_AFTER_MS) await scheduleDelivery(db, earlier);
      await scheduleDelivery(db, ev, new Date(Math.max(earlierAt, Date.now()) + BLOCKED_RECHECK_MS));
      return 'skipped';
    }
    const claimed = await repo.claimAttempt(db, ev.id, ev.attempts);
    if (!claimed) return 'skipped'; // another runner took this attempt
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
    let addresses;
    try {
      addresses = await resolveTarget(ev.target_url, base.config.webhookAllowPrivate);
    } catch (err) {
      if (!(err instanceof TargetRefusedError)) throw err;
      return settle(claimed, attempt, failure(`target refused: ${err.message}`), true);
    }
    // The wire timestamp is real time (not the injectable clock): receivers compare it with theirs.
    const timestamp = Math.floor(Date.now() / 1000);
    const id = webhookId(ev.id);
    const result = await sendWebhook({
      url: ev.target_url,
      body,
      addresses,
      timeoutMs: base.config.webhookTimeoutMs,
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
   */
  async function redeliver(eventId: number) {
    await db.transaction().execute(async (trx) => {
      const ev = await trx.selectFrom('webhook_events').selectAll().where('id', '=', eventId).forUpdate().executeTakeFirst();
      if (!ev) throw notFound();
      const currentMax = ev.max_attempts ?? base.config.webhookRetrySchedule.length;
      const max = ev.state === 'pending' ? Math.max(currentMax, ev.attempts + 1) : ev.attempts + 1;
      await repo.reopenEvent(trx, ev.id, max);
      await scheduleDelivery(trx, ev);
    });
    return getDelivery(eventId);
  }

  return { deliver, listDeliveries, getDelivery, redeliver };
}

function failure(error: string): SendResult {
  return { statusCode: null, headers: {}, excerpt: null, error, latencyMs: 0 };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
