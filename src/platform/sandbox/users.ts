// Sandbox users (DESIGN 6): any partner >= 8 with an 8-character token is a valid user; the
// magic partners 90000001..90000010 produce the platform's error conditions.
import { PlatformUnavailableError, PlatformUserError, platformIdOf, type PlatformUser, type UserErrorCode } from '../port.js';

export const MAGIC_PARTNERS: Record<number, UserErrorCode | 'empty_inventory' | 'unavailable'> = {
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
};

export const EMPTY_INVENTORY_PARTNER = 90000009;
export const UNAVAILABLE_PARTNER = 90000010;

/**
 * Checks a trade link the way the platform would. The platform's silence (partner 90000010)
 * is not checked here: each operation decides how a non-answer shows (timeout, failed purchase).
 */
export function sandboxUser(partner: number, token: string): PlatformUser {
  if (!Number.isInteger(partner) || partner < 8 || typeof token !== 'string' || token.length !== 8) {
    throw new PlatformUserError('trade_link_invalid');
  }
  const magic = MAGIC_PARTNERS[partner];
  if (magic && magic !== 'empty_inventory' && magic !== 'unavailable') throw new PlatformUserError(magic);
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

export { PlatformUnavailableError };
