// How every deposit path calls the trading platform and shows its errors on the merchant API:
// inventory, create-deposit, create-deposit-by-hash-name (rule 1), deposit-preview, create-intent
// (trade-link check) and the hosted page (which goes through the same deposit operations).
//
// One mapping, used by all of them:
//   - PlatformUserError (a refusal for this user)      → 400 `validation error`, domain code first (7.3)
//   - NoBotAvailableError (no bot in rotation serves the game: every one is out, e.g. its session
//     died and its sign-in fails)                      → 503 `service unavailable`, data code
//     `service_unavailable`, Retry-After (spec 7.2: temporary unavailability, retry shortly)
//   - PlatformUnavailableError (the platform failed)   → 500 `integration service error` (retry)
//   - no answer within DEPOSIT_TIMEOUT_MS               → 500 `integration service error` (retry)
// Spec 7.2 lists "500 internal error or integration service error (retry)" and 4.4 names
// `500 integration service error` for an upstream failure; 503 is reserved for purchase/available
// (catalogue rebuild) and 408 for the pricing upstream. A silent platform is reported exactly like
// a failing one, so merchants need one retry rule for both.
//
// The perform step (sending the offer of a committed deposit) is different on purpose: spec 4.5
// rule 8 answers it in-band (HTTP 200, status failed, fail_reason service_unavailable); see
// perform() in offer.ts, which sends through the offer layer (src/platform/offers.ts) directly.
import { AppError, validationError } from '../../domain/errors.js';
import { PlatformTimeoutError, platformDeadline } from '../../platform/offers.js';
import { NoBotAvailableError, PlatformUnavailableError, PlatformUserError } from '../../platform/port.js';

export const INTEGRATION_SERVICE_ERROR = 'integration service error';
/** How long a merchant is asked to wait when no bot can take the call (a bot's sign-in retries within seconds to minutes). */
export const NO_BOT_RETRY_AFTER_SECONDS = 30;

/** A platform error as the merchant API shows it; anything else is returned unchanged. */
export function platformErrorToAppError(err: unknown): unknown {
  if (err instanceof PlatformUserError) return validationError([{ field: err.field, code: err.code, message: err.message }]);
  if (err instanceof NoBotAvailableError) {
    return new AppError('unavailable', 'service unavailable', [{ field: 'game', code: 'service_unavailable', message: 'no bot can trade this game right now; retry shortly' }], { 'retry-after': String(NO_BOT_RETRY_AFTER_SECONDS) });
  }
  if (err instanceof PlatformUnavailableError || err instanceof PlatformTimeoutError) return new AppError('integration', INTEGRATION_SERVICE_ERROR);
  return err;
}

/** Calls the platform with a time limit; its errors leave as the merchant API's (see above). */
export async function callPlatform<T>(fn: () => Promise<T>, timeoutMs: number): Promise<T> {
  try {
    return await platformDeadline(fn(), timeoutMs);
  } catch (err) {
    throw platformErrorToAppError(err);
  }
}
