// The purchase state machine of spec 3.2, in the one form of state-machine.ts. Pure: the purchase
// transitions module applies a transition with one guarded UPDATE and performs the effects named
// here in the same transaction (ledger refund, listing back on sale or sold for good, webhook, jobs).
import { stateMachine } from './state-machine.js';

export const PURCHASE_STATUSES = ['new', 'pending', 'active', 'hold', 'completed', 'failed', 'canceled', 'reverted'] as const;
export type PurchaseStatus = (typeof PURCHASE_STATUSES)[number];

/** Fail reasons at creation (spec 3.3); the purchase is stored `failed` with one of them. */
export const CREATION_FAIL_REASONS = [
  'insufficient_balance',
  'price_changed',
  'item_sold',
  'item_not_available',
  'duplicate_purchase',
  'item_specified_price_not_found',
  'provider_unavailable',
] as const;
export type CreationFailReason = (typeof CREATION_FAIL_REASONS)[number];

/** Fail reasons after creation (spec 3.3). */
export const LATER_FAIL_REASONS = [
  'canceled_by_user',
  'buyer_too_slow',
  'gateway_too_slow',
  'timeout_error',
  'canceled_by_gateway',
  'trade_url_error',
  'user_reverted',
  'gateway_reverted',
] as const;
export type PurchaseFailReason = CreationFailReason | (typeof LATER_FAIL_REASONS)[number];
/** Every fail reason, as the purchase views and the webhook payloads enumerate them. */
export const PURCHASE_FAIL_REASONS = [...CREATION_FAIL_REASONS, ...LATER_FAIL_REASONS];

/** What happens to the listing when a purchase enters a status. */
export type ListingEffect = 'none' | 'release' | 'sold';

/** The events that move a purchase. */
export type PurchaseEvent =
  | 'send' // dispatch job: the platform accepted our offer
  | 'fail' // dispatch job or watchdog: provider_unavailable / trade_url_error / timeout_error / gateway_too_slow
  | 'accept_hold' // user accepted, the platform applies a hold
  | 'accept' // user accepted, no hold
  | 'release' // hold_end_date reached (timed job or sandbox release)
  | 'decline' // user declined → canceled_by_user
  | 'expire' // offer not accepted in time → buyer_too_slow
  | 'cancel' // canceled by the gateway
  | 'revert' // reversed during the hold
  // Corrections: the platform's own report of an accepted trade for a purchase the
  // gateway closed (refunded): the buyer has the item, so the purchase follows the trade.
  | 'follow_hold' // failed / canceled → hold
  | 'follow_accept'; // failed / canceled → completed

/** The only events leaving a terminal purchase status. */
export const PURCHASE_CORRECTIONS: readonly PurchaseEvent[] = ['follow_hold', 'follow_accept'];

/**
 * refund: the full amount returns to available (`purchase:<id>:refund`, only after a reserve);
 * charge: a refunded purchase that follows the trade takes its amount again (`purchase:<id>:follow`).
 */
export type PurchaseMovement = 'refund' | 'charge';

export interface PurchaseEntry {
  listing: ListingEffect;
  /** A purchase webhook is sent on entry (never for new or pending). */
  webhook: boolean;
  /** fail_reason is part of the record in this status. */
  keepsFailReason: boolean;
}

/** Anything not listed is refused (409 invalid transition from helpers). */
export const PURCHASE_MACHINE = stateMachine<PurchaseStatus, PurchaseEvent, PurchaseMovement, PurchaseEntry>({
  statuses: PURCHASE_STATUSES,
  transitions: {
    send: { from: ['pending'], to: 'active' },
    fail: { from: ['new', 'pending'], to: 'failed', movement: 'refund' },
    accept_hold: { from: ['active'], to: 'hold' },
    accept: { from: ['active'], to: 'completed' },
    release: { from: ['hold'], to: 'completed' },
    decline: { from: ['active'], to: 'canceled', failReason: 'canceled_by_user', movement: 'refund' },
    expire: { from: ['active'], to: 'canceled', failReason: 'buyer_too_slow', movement: 'refund' },
    cancel: { from: ['new', 'pending', 'active'], to: 'canceled', failReason: 'canceled_by_gateway', movement: 'refund' },
    revert: { from: ['hold'], to: 'reverted', movement: 'refund' },
    follow_hold: { from: ['failed', 'canceled'], to: 'hold', movement: 'charge' },
    follow_accept: { from: ['failed', 'canceled'], to: 'completed', movement: 'charge' },
  },
  // Active: the dispatcher's offer-expiry sweep; hold: the hold-end job.
  onEnter: {
    new: { listing: 'none', webhook: false, keepsFailReason: false, terminal: false },
    pending: { listing: 'none', webhook: false, keepsFailReason: false, terminal: false },
    active: { listing: 'none', webhook: true, keepsFailReason: false, terminal: false },
    hold: { listing: 'none', webhook: true, keepsFailReason: false, terminal: false },
    completed: { listing: 'sold', webhook: true, keepsFailReason: false, terminal: true },
    failed: { listing: 'release', webhook: true, keepsFailReason: true, terminal: true },
    canceled: { listing: 'release', webhook: true, keepsFailReason: true, terminal: true },
    reverted: { listing: 'release', webhook: true, keepsFailReason: true, terminal: true },
  },
});
