// Sandbox users (DESIGN 6): any partner >= 8 with an 8-character token is a valid user; the
// magic partners 90000001..90000013 produce the platform's error conditions.
import { PlatformUnavailableError, PlatformUserError, platformIdOf, type PlatformUser, type UserErrorCode } from '../port.js';

export type MagicCondition = UserErrorCode | 'empty_inventory' | 'unavailable' | 'revoked_after_check' | 'silent_purchase' | 'late_answer';

export const MAGIC_PARTNERS: Record<number, MagicCondition> = {
  90000001: 'trade_link_invalid',
  90000002: 'trade_link_revoked',
  90000003: 'trade_banned',
  90000004: 'profile_private',
  90000005: 'limited_account',
  90000006: 'hold',
  90000007: 'permissions',
  90000008: 'hold_and_permissions',
  90000009: 'empty_inventory',
  90000010: 'unavailable',
  // The trade link checks out (and the inventory loads), but by the time an offer is sent the
  // user has reset it: sending refuses with trade_link_revoked (a purchase → trade_url_error).
  90000011: 'revoked_after_check',
  // The trade link checks out, but a purchase offer is never answered (a purchase → timeout_error).
  90000012: 'silent_purchase',
  // The trade link checks out, but sending an offer answers late: after DEPOSIT_TIMEOUT_MS plus a
  // little, when the gateway has already given up on it (the gateway must cancel the late offer).
  90000013: 'late_answer',
};

/** Conditions that show only when an offer is sent: the trade link itself checks out. */
const SEND_TIME_CONDITIONS: readonly MagicCondition[] = ['empty_inventory', 'unavailable', 'revoked_after_check', 'silent_purchase', 'late_answer'];

export const EMPTY_INVENTORY_PARTNER = 90000009;
export const UNAVAILABLE_PARTNER = 90000010;
export const REVOKED_AFTER_CHECK_PARTNER = 90000011;
export const SILENT_PURCHASE_PARTNER = 90000012;
export const LATE_ANSWER_PARTNER = 90000013;

/**
 * Checks a trade link the way the platform would. Conditions that show only when an offer is sent
 * (90000010..90000013) are not checked here: each operation decides how they show.
 */
export function sandboxUser(partner: number, token: string): PlatformUser {
  if (!Number.isInteger(partner) || partner < 8 || typeof token !== 'string' || token.length !== 8) {
    throw new PlatformUserError('trade_link_invalid');
  }
  const magic = MAGIC_PARTNERS[partner];
  if (magic && !SEND_TIME_CONDITIONS.includes(magic)) throw new PlatformUserError(magic as UserErrorCode);
  return {
    partner,
    token,
    platformId: platformIdOf(partner),
    name: `Sandbox user ${partner}`,
    avatarUrl: undefined,
  };
}

export function isUnavailablePartner(partner: number): boolean {
  return partner === UNAVAILABLE_PARTNER;
}

/** 90000011: the trade link was reset after it was checked; sending an offer to it is refused. */
export function isRevokedAfterCheckPartner(partner: number): boolean {
  return partner === REVOKED_AFTER_CHECK_PARTNER;
}

/** 90000012: a purchase offer to this user is never answered. */
export function isSilentPurchasePartner(partner: number): boolean {
  return partner === SILENT_PURCHASE_PARTNER;
}

/** 90000013: sending an offer to this user answers only after the gateway's call timeout. */
export function isLateAnswerPartner(partner: number): boolean {
  return partner === LATE_ANSWER_PARTNER;
}

export { PlatformUnavailableError };
