// "Send test event": one signed POST to the merchant's webhook URL, now, with the same signatures
// and SSRF rules as real deliveries; the answer is shown, nothing is queued or retried.
import crypto from 'node:crypto';
import type { WebDeps } from '../deps.js';
import { validationError } from '../../../http/errors.js';
import { sendWebhook } from '../../webhooks/http-sender.js';
import { legacySign, standardSignature } from '../../webhooks/signing.js';
import { isTargetRefused, resolveTarget } from '../../webhooks/target.js';
import { USER_AGENT } from '../../webhooks/webhook-service.js';

/** The status of the test event: no deposit or purchase ever has it. */
export const TEST_EVENT_STATUS = 'test';

export async function sendTestEvent(ctx: WebDeps, merchantId: number) {
  const m = await ctx.merchants.findRow(merchantId);
  if (!m?.webhook_url) throw validationError([{ field: 'webhook_url', code: 'required', message: 'set a webhook URL first' }]);
  // Nothing real looks like it: status `test` is no record's status (a handler that acts on
  // `completed` never acts on it), trade_id 0 names no deposit, and `test: true` says so.
  const body = JSON.stringify({ sign: legacySign(0, m.webhook_secret), trade_id: 0, merchant_tx_id: 'test_event', status: TEST_EVENT_STATUS, test: true });
  const startedAt = performance.now();
  let addresses;
  try {
    addresses = await resolveTarget(m.webhook_url, ctx.config.webhookAllowPrivate, { timeoutMs: ctx.config.webhookTimeoutMs });
  } catch (err) {
    if (!isTargetRefused(err)) throw err;
    return { url: m.webhook_url, status_code: null, error: `target refused: ${err.message}`, latency_ms: 0, excerpt: null };
  }
  const id = `msg_test_${crypto.randomBytes(8).toString('hex')}`;
  const ts = Math.floor(Date.now() / 1000);
  const r = await sendWebhook({
    url: m.webhook_url,
    body,
    addresses,
    timeoutMs: ctx.config.webhookTimeoutMs,
    startedAt,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': standardSignature(m.webhook_secret, id, ts, body),
    },
  });
  await ctx.webhooks.recordTestEvent({ merchantId, webhookId: id, url: m.webhook_url, body, statusCode: r.statusCode, error: r.error, latencyMs: r.latencyMs, excerpt: r.excerpt });
  return { url: m.webhook_url, status_code: r.statusCode, error: r.error, latency_ms: r.latencyMs, excerpt: r.excerpt };
}
