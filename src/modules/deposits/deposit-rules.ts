// Request rules shared by every deposit creation path (create-deposit, by-hash-name, intents):
// custom currency (spec 4.1, 8), the redirect URLs, and the commit-time rules with their errors.
import { isHttpUrl } from '../../http/validation.js';
import { AppError, validationError, type FieldError } from '../../domain/errors.js';
import { unphasedName } from '../../domain/phases.js';

export interface CustomCurrencyInput {
  custom_currency?: string | null;
  custom_currency_multiplier?: number | null;
  custom_currency_rate?: number | null;
}

/**
 * The spec fixes rate ≥ 0.1 only; the upper bound is ours. It keeps custom_currency_sum
 * (amount × rate × multiplier, in mills) an exact integer for any realistic deposit: up to
 * about 4.5 million USD at rate 1 000 000 and multiplier 2. Every creation schema (create-deposit,
 * by-hash-name, create-intent) and customCurrencyErrors use it.
 */
export const CUSTOM_CURRENCY_LIMITS = { minLen: 1, maxLen: 4, minMultiplier: 0.5, maxMultiplier: 2.0, minRate: 0.1, maxRate: 1_000_000 } as const;

/** All three custom currency fields or none; 1–4 characters; multiplier 0.5–2.0; rate 0.1–1 000 000. */
export function customCurrencyErrors(input: CustomCurrencyInput, prefix = ''): FieldError[] {
  const f = (name: string) => `${prefix}${name}`;
  const given = {
    custom_currency: input.custom_currency != null,
    custom_currency_multiplier: input.custom_currency_multiplier != null,
    custom_currency_rate: input.custom_currency_rate != null,
  };
  const count = Object.values(given).filter(Boolean).length;
  const errors: FieldError[] = [];
  if (count === 0) return errors;
  if (count < 3) {
    for (const [name, present] of Object.entries(given)) {
      if (!present) errors.push({ field: f(name), code: 'required', message: `${name} is required: the three custom currency fields go together` });
    }
  }
  const { custom_currency: cur, custom_currency_multiplier: mul, custom_currency_rate: rate } = input;
  const L = CUSTOM_CURRENCY_LIMITS;
  if (cur != null && (typeof cur !== 'string' || cur.length < L.minLen || cur.length > L.maxLen)) {
    errors.push({ field: f('custom_currency'), code: 'len', message: 'custom_currency must be 1 to 4 characters' });
  }
  if (mul != null) {
    if (typeof mul !== 'number' || !Number.isFinite(mul)) errors.push({ field: f('custom_currency_multiplier'), code: 'numeric', message: 'custom_currency_multiplier must be a number' });
    else if (mul < L.minMultiplier) errors.push({ field: f('custom_currency_multiplier'), code: 'min', message: 'custom_currency_multiplier must be at least 0.5' });
    else if (mul > L.maxMultiplier) errors.push({ field: f('custom_currency_multiplier'), code: 'max', message: 'custom_currency_multiplier must be at most 2.0' });
  }
  if (rate != null) {
    if (typeof rate !== 'number' || !Number.isFinite(rate)) errors.push({ field: f('custom_currency_rate'), code: 'numeric', message: 'custom_currency_rate must be a number' });
    else if (rate < L.minRate) errors.push({ field: f('custom_currency_rate'), code: 'min', message: 'custom_currency_rate must be at least 0.1' });
    else if (rate > L.maxRate) errors.push({ field: f('custom_currency_rate'), code: 'max', message: `custom_currency_rate must be at most ${L.maxRate}` });
  }
  return errors;
}

/** success_url / fail_url: valid http(s) URLs when given (result_url is checked as a webhook target). */
export function redirectUrlErrors(input: { success_url?: string | null; fail_url?: string | null }, prefix = ''): FieldError[] {
  const errors: FieldError[] = [];
  for (const name of ['success_url', 'fail_url'] as const) {
    const v = input[name];
    if (v != null && !isHttpUrl(v)) errors.push({ field: `${prefix}${name}`, code: 'url', message: `${name} must be a valid http(s) URL` });
  }
  return errors;
}

/** Mills of a merchant-given USD floor; undefined when absent, not a number, or 0 and below (ignored). */
export function floorMills(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return undefined;
  // A floor with more than 3 decimals still compares exactly: round it up to the next mill.
  return Math.ceil(n * 1000 - 1e-6);
}

// ---- commit-time rules and their errors (both flows) ----

export const tooManyItems = (max: number, field: string) =>
  new AppError('validation', `deposit exceeds the maximum of ${max} items per deposit`, [{ field, code: 'too_many_items', message: `at most ${max} items per deposit` }]);

export const inventoryReload = (message: string) => validationError([{ field: 'inventory', code: 'inventory_reload', message }]);

export const priceFloorError = (field: string, message: string) =>
  new AppError('validation', 'item_specified_price_not_found', [{ field, code: 'item_specified_price_not_found', message }]);

/** A hosted page used after its intent's INTENT_TTL_SECONDS: nothing can be deposited through it. */
export const intentExpired = () => validationError([{ field: 'intent', code: 'link_expired', message: 'this deposit link has expired; start the deposit again from the merchant site' }]);

/** Whether a not yet committed intent's hosted link is past its expiry (null: no expiry recorded). */
export function intentLinkExpired(intent: { status: string; hosted_expires_at: Date | string | null }, now: Date): boolean {
  return intent.status === 'new' && intent.hosted_expires_at !== null && new Date(intent.hosted_expires_at).getTime() <= now.getTime();
}

export const denied = (message = 'trade is not in status new') => validationError([{ field: 'status', code: 'denied', message }]);

/** An asset of the request is already in a live (pending, active, hold) deposit of the same user. */
export const assetReservedMessage = (assetId: string) => `asset ${assetId} is already in another deposit that is not finished`;

/** Duplicate asset IDs within one request (a deposit takes each asset once). */
export function duplicateAssetErrors(assetIds: readonly (string | undefined | null)[], fieldOf: (i: number) => string): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  assetIds.forEach((a, i) => {
    if (a == null || a === '') return;
    if (seen.has(a)) errors.push({ field: fieldOf(i), code: 'duplicate', message: `asset ${a} is listed twice` });
    seen.add(a);
  });
  return errors;
}

/** min_prices as a lookup: only an object's own entries count; anything else is no floors at all. */
export function floorLookup(minPrices: unknown): (assetId: string) => number | undefined {
  if (minPrices === null || typeof minPrices !== 'object' || Array.isArray(minPrices)) return () => undefined;
  const floors = minPrices as Record<string, unknown>;
  return (assetId) => (Object.hasOwn(floors, assetId) ? floorMills(floors[assetId]) : undefined);
}

export interface DepositUrls {
  result_url?: string | null;
  success_url?: string | null;
  fail_url?: string | null;
}

/** Keeps only the columns a merchant may set; undefined means "not given". */
export function currencyColumns(req: CustomCurrencyInput) {
  if (req.custom_currency == null) return {};
  return {
    custom_currency: req.custom_currency,
    custom_currency_multiplier: req.custom_currency_multiplier ?? null,
    custom_currency_rate: req.custom_currency_rate ?? null,
  };
}

export function urlColumns(req: DepositUrls) {
  const out: Partial<Record<'result_url' | 'success_url' | 'fail_url', string>> = {};
  if (req.result_url) out.result_url = req.result_url;
  if (req.success_url) out.success_url = req.success_url;
  if (req.fail_url) out.fail_url = req.fail_url;
  return out;
}

// ---- every credit is backed by a real item (both flows, before any offer) ----

/** An asset of a deposit with the item it is credited as (name without phase suffix, and phase). */
export interface ExpectedAsset {
  assetId: string | null | undefined;
  name: string;
  phase?: string | null;
}

/** What the platform says the user holds now (port PlatformItem's fields). */
export interface HeldItem {
  assetId: string;
  marketHashName: string;
  phase?: string;
  tradable?: boolean;
}

export type HeldAssetFailure = 'item_not_available' | 'price_changed';

/**
 * Checks each asset against the user's current inventory: present, tradable and the item it is
 * credited as (item_not_available), and of the phase it was priced by (price_changed: the price
 * was for another phase). Answers the field errors and the fail_reason to store (item_not_available
 * wins), or null when every asset is what the deposit says.
 */
export function heldAssetProblems(
  expected: readonly ExpectedAsset[],
  inventory: readonly HeldItem[],
  fieldOf: (i: number) => string,
): { reason: HeldAssetFailure; errors: FieldError[] } | null {
  const held = new Map(inventory.map((it) => [it.assetId, it]));
  const errors: FieldError[] = [];
  let reason: HeldAssetFailure = 'price_changed';
  const fail = (i: number, code: HeldAssetFailure, message: string) => {
    errors.push({ field: fieldOf(i), code, message });
    if (code === 'item_not_available') reason = code;
  };
  expected.forEach((e, i) => {
    const it = e.assetId ? held.get(e.assetId) : undefined;
    if (!it) return fail(i, 'item_not_available', `asset ${e.assetId ?? ''} is not in the user's inventory`);
    if (it.tradable === false) return fail(i, 'item_not_available', `asset ${e.assetId} cannot be traded now`);
    if (it.marketHashName !== e.name) return fail(i, 'item_not_available', `asset ${e.assetId} is ${it.marketHashName}, not ${e.name}`);
    const want = e.phase ?? null;
    const has = it.phase ?? null;
    if (want !== has) {
      fail(i, 'price_changed', `asset ${e.assetId} is ${has ?? 'without a phase'}, the price was for ${want ?? 'no phase'}; quote it by its phase`);
    }
  });
  return errors.length ? { reason, errors } : null;
}

/** A quoted name as the item it names: "<name> - <phase>" of a phase-priced quote is <name> in that phase. */
export function quotedItem(quotedName: string, phase: string | null | undefined): { name: string; phase: string | null } {
  const base = unphasedName(quotedName, phase);
  return { name: base ?? quotedName, phase: phase ?? null };
}
