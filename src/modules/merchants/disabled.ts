// What a disabled merchant means, everywhere (docs/decisions/disabled-merchant.md): the
// account is frozen. Its API keys answer 403, its hosted deposit pages answer 403, its dashboard
// users may sign in and read (history, balances, CSV) and look after their own account, but nothing
// is changed on the merchant's behalf (no withdrawal, no key or secret rotation, no settings, no
// team changes, no test events or sandbox actions). Records already in flight finish and their
// webhooks are still sent. Operators keep every console action. This module is the one place.
import { AppError } from '../../domain/errors.js';

export const MERCHANT_DISABLED = 'merchant account is disabled';

/** The 403 a disabled merchant gets, or undefined when it is enabled. */
export function disabledRefusal(merchant: { enabled: boolean }): AppError | undefined {
  return merchant.enabled ? undefined : new AppError('forbidden', MERCHANT_DISABLED);
}

/**
 * Dashboard posts a user of a disabled merchant may still make: signing in and out, accepting an
 * invitation, and their own account (authenticator, sessions).
 */
export function dashboardPostAllowedWhileDisabled(path: string): boolean {
  return /^\/dashboard\/(sign-in|sign-out|invite\/[^/]+|account(\/.*)?)$/.test(path);
}
