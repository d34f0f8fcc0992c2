// Wire shapes of deposits (spec 2.1, 4.3, 4.5, 4.7, 6.1). Money leaves as USD numbers, timestamps
// as fixed-width UTC, bot_platform_id as an exact JSON integer (a BigInt the route serialiser writes).
import { isoUtc } from '../../domain/clock.js';
import { applyRate, millsToUsd } from '../../domain/money.js';
import type { DepositRow, DepositStatusRow } from './deposit-repo.js';

const iso = (d: Date | string | null | undefined) => (d ? isoUtc(d) : null);

/** 64-bit platform IDs exceed 2^53: kept as BigInt so the JSON integer is exact. */
export const botPlatformIdOf = (d: Pick<DepositRow, 'bot_platform_id'>): bigint | null => (d.bot_platform_id ? BigInt(d.bot_platform_id) : null);

/**
 * amount × rate × multiplier in the custom currency, or null when it cannot be shown exactly
 * (a stored record must always render: status, sandbox helpers and the hosted page read it).
 */
export function customCurrencySum(amountMills: number, rate: number, multiplier: number): number | null {
  const factor = rate * multiplier;
  if (!Number.isFinite(factor) || factor < 0 || !Number.isSafeInteger(amountMills)) return null;
  const mills = applyRate(amountMills, factor);
  return Number.isSafeInteger(mills) ? millsToUsd(mills) : null;
}

/** create-deposit / create-deposit-by-hash-name answer: no custom currency fields. */
export function commitView(d: DepositRow) {
  return { ...coreView(d), ...(d.status === 'failed' ? { fail_reason: d.fail_reason } : {}) };
}

/** The fields every deposit answer carries. */
function coreView(d: DepositStatusRow) {
  return {
    id: d.id,
    merchant_tx_id: d.merchant_tx_id,
    status: d.status,
    amount: millsToUsd(d.amount),
    bot_name: d.bot_name,
    bot_platform_id: botPlatformIdOf(d),
    trade_offer_id: d.trade_offer_id,
    trade_offer_expiry_at: iso(d.trade_offer_expiry_at),
  };
}

/** deposit/status (4.7): conditional fields exactly as the spec lists them. */
export function statusView(d: DepositStatusRow) {
  const out: Record<string, unknown> = coreView(d);
  if (d.success_url) out.success_url = d.success_url;
  if (d.fail_url) out.fail_url = d.fail_url;
  if (d.status === 'hold') out.hold_end_date = iso(d.hold_end_date);
  out.fail_reason = d.status === 'failed' || d.status === 'canceled' || d.status === 'reverted' ? d.fail_reason : null;
  if (d.status === 'hold' || d.status === 'completed') {
    const set = d.custom_currency != null && d.custom_currency_rate != null && d.custom_currency_multiplier != null;
    out.custom_currency = set ? d.custom_currency : null;
    out.custom_currency_multiplier = set ? Number(d.custom_currency_multiplier) : null;
    out.custom_currency_rate = set ? Number(d.custom_currency_rate) : null;
    out.custom_currency_sum = set
      ? customCurrencySum(Number(d.amount), Number(d.custom_currency_rate), Number(d.custom_currency_multiplier))
      : null;
  }
  return out;
}

/** The deposit webhook body of spec 6.1 without `sign` (the webhooks feature signs it). */
export function webhookPayload(d: DepositRow): Record<string, unknown> {
  const body: Record<string, unknown> = {
    status: d.status,
    trade_id: d.id,
    trade_date: isoUtc(d.created_at),
    merchant_tx_id: d.merchant_tx_id ?? '',
    platform_id: d.platform_id ?? '',
    offer_id: d.trade_offer_id ?? '',
    amount: millsToUsd(d.amount),
    amount_currency: 'usd',
  };
  if (d.status === 'hold') body.hold_end_date = iso(d.hold_end_date);
  if (d.status === 'failed' || d.status === 'canceled') body.fail_reason = d.fail_reason;
  return body;
}
