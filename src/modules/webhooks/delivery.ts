// One attempt of a claimed event, without the database: sign with the merchant's current secret,
// vet the target's addresses, POST, and turn the answer into an outcome for settleAttempts.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { sendWebhook, type AgentPool, type SendResult } from './http-sender.js';
import { isAcknowledged, nextRetry } from './schedule.js';
import { isAppError } from '../../domain/errors.js';
import { buildWebhookBody, standardSignature, webhookId } from './signing.js';
import { isTargetRefused, resolveTarget, TargetLookupTimeoutError, type Lookup } from './target.js';
import type { AttemptOutcome, ClaimedEvent } from './webhook-repo.js';

export const USER_AGENT = 'SkinGateway-Webhooks/1';
export const INTERRUPTED_ERROR = 'interrupted: no result within the attempt lease (the worker stopped during the attempt?)';

export interface AttemptDeps {
  log: Logger;
  config: Pick<Config, 'webhookAllowPrivate' | 'webhookRetrySchedule' | 'webhookTimeoutMs'>;
  lookup: Lookup;
  agents?: AgentPool;
}

export function failure(error: string, startedAt?: number): SendResult {
  return { statusCode: null, headers: {}, excerpt: null, error, latencyMs: startedAt === undefined ? 0 : Math.round(performance.now() - startedAt) };
}

/** The outcome of attempt `ev.attempts` of `ev`: acknowledged, or failed with the delay before a retry ('final': no retry). */
export function outcomeOf(
  ev: Pick<ClaimedEvent, 'id' | 'attempts' | 'redeliver_generation'>,
  result: SendResult,
  onFailure: 'retry' | 'final',
  schedule: number[],
): AttemptOutcome {
  const ack = isAcknowledged(result.statusCode);
  // Exhaustion (max_attempts, the schedule's length) is decided by the settle, on the row it locks.
  const retry = ack || onFailure === 'final'
    ? undefined
    : nextRetry({ schedule, attemptsDone: ev.attempts, maxAttempts: Number.MAX_SAFE_INTEGER, statusCode: result.statusCode, retryAfterHeader: result.headers['retry-after'], nowMs: Date.now() });
  return {
    eventId: ev.id,
    attempt: ev.attempts,
    generation: ev.redeliver_generation,
    statusCode: result.statusCode,
    latencyMs: result.latencyMs,
    error: result.error,
    excerpt: result.excerpt,
    outcome: ack ? 'ack' : onFailure,
    delayMs: retry && !retry.exhausted ? retry.delayMs : 0,
  };
}

/** Makes the attempt the claim took (its deadline covers the name lookup). Never throws. */
export async function attemptDelivery(ev: ClaimedEvent, deps: AttemptDeps): Promise<AttemptOutcome> {
  const { config, log } = deps;
  const startedAt = performance.now();
  const done = (result: SendResult, onFailure: 'retry' | 'final' = 'retry') => outcomeOf(ev, result, onFailure, config.webhookRetrySchedule);
  if (ev.webhook_secret === null) return done(failure('merchant not found'), 'final');
  // A dashboard test event is recorded settled; one redelivered by an operator is not sent again.
  if (ev.kind === 'test') return done(failure('test events are sent once, from the dashboard'), 'final');
  let body: string;
  try {
    // Signed with the merchant's CURRENT secret (read by the claim): a rotation applies to pending retries too.
    body = buildWebhookBody(ev.kind, ev.record_id, ev.payload, ev.webhook_secret).body;
  } catch (err) {
    if (!isAppError(err, 'validation')) return done(failure(`payload refused: ${(err as Error).message}`), 'final');
    log.error({ eventId: ev.id, merchantId: ev.merchant_id, err: err.message }, 'webhook payload refused');
    return done(failure(`payload refused: ${err.message}`), 'final');
  }
  const timeoutMs = config.webhookTimeoutMs;
  let addresses;
  try {
    addresses = await resolveTarget(ev.target_url, config.webhookAllowPrivate, { lookup: deps.lookup, timeoutMs: Math.max(0, startedAt + timeoutMs - performance.now()) });
  } catch (err) {
    if (err instanceof TargetLookupTimeoutError) return done(failure(`timeout after ${timeoutMs} ms (resolving ${err.host})`, startedAt));
    if (isTargetRefused(err)) return done(failure(`target refused: ${err.message}`, startedAt));
    return done(failure(`target refused: ${(err as Error).message}`, startedAt));
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
    agents: deps.agents,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': standardSignature(ev.webhook_secret, id, timestamp, body),
    },
  });
  if (result.statusCode !== null && result.statusCode >= 300 && result.statusCode < 400 && !result.error) {
    result.error = `redirect ${result.statusCode} not followed${result.headers.location ? ` (location: ${String(result.headers.location).slice(0, 200)})` : ''}`;
  }
  return done(result);
}
