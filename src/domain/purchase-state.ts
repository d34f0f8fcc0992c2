// The purchase state machine of spec 3.2 as data. Pure: the purchase service applies a transition
// with one guarded UPDATE (WHERE status = <from>) and performs the effects named here in the same
// transaction (ledger refund, listing back on sale or sold for good, webhook).

export const PURCHASE_STATUSES = ['new', 'pending', 'active', 'hold', 'completed', 'failed', 'canceled', 'reverted'] as const;
export type PurchaseStatus = (typeof PURCHASE_STATUSES)[number];

export const TERMINAL_PURCHASE_STATUSES: readonly PurchaseStatus[] = ['completed', 'failed', 'canceled', 'reverted'];

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

/** What happens to the listing when a purchase enters a status. */
export type ListingEffect = 'none' | 'release' | 'sold';

/** The events that move a purchase. */
export type PurchaseEvent =
  | 'offer_sent' // dispatch job: the platform accepted our offer
  | 'dispatch_failed' // dispatch job: provider_unavailable / trade_url_error
  | 'accepted_hold' // user accepted, the platform applies a hold
  | 'accepted' // user accepted, no hold
  | 'hold_ended' // hold_end_date reached (timed job or sandbox release)
  | 'declined' // user declined → canceled_by_user
  | 'expired' // offer not accepted in time → buyer_too_slow
  | 'canceled' // canceled by the gateway
  | 'reverted'; // reversed during the hold

export interface PurchaseTransition {
  event: PurchaseEvent;
  from: readonly PurchaseStatus[];
  to: PurchaseStatus;
  /** Fail reason recorded on entry (when the event fixes it); else given by the caller. */
  failReason?: PurchaseFailReason;
}

/** The transition table. Anything not listed is refused (409 invalid transition from helpers). */
export const PURCHASE_TRANSITIONS: readonly PurchaseTransition[] = [
  { event: 'offer_sent', from: ['pending'], to: 'active' },
  { event: 'dispatch_failed', from: ['new', 'pending'], to: 'failed' },
  { event: 'accepted_hold', from: ['active'], to: 'hold' },
  { event: 'accepted', from: ['active'], to: 'completed' },
  { event: 'hold_ended', from: ['hold'], to: 'completed' },
  { event: 'declined', from: ['active'], to: 'canceled', failReason: 'canceled_by_user' },
  { event: 'expired', from: ['active'], to: 'canceled', failReason: 'buyer_too_slow' },
  { event: 'canceled', from: ['new', 'pending', 'active'], to: 'canceled', failReason: 'canceled_by_gateway' },
  { event: 'reverted', from: ['hold'], to: 'reverted' },
];

export interface StatusEffects {
  /** The full amount returns to available (`purchase:<id>:refund`). */
  refund: boolean;
  listing: ListingEffect;
  /** A purchase webhook is sent on entry (never for new or pending). */
  webhook: boolean;
  /** fail_reason is part of the record in this status. */
  keepsFailReason: boolean;
}

export const STATUS_EFFECTS: Record<PurchaseStatus, StatusEffects> = {
  new: { refund: false, listing: 'none', webhook: false, keepsFailReason: false },
  pending: { refund: false, listing: 'none', webhook: false, keepsFailReason: false },
  active: { refund: false, listing: 'none', webhook: true, keepsFailReason: false },
  hold: { refund: false, listing: 'none', webhook: true, keepsFailReason: false },
  completed: { refund: false, listing: 'sold', webhook: true, keepsFailReason: false },
  failed: { refund: true, listing: 'release', webhook: true, keepsFailReason: true },
  canceled: { refund: true, listing: 'release', webhook: true, keepsFailReason: true },
  reverted: { refund: true, listing: 'release', webhook: true, keepsFailReason: true },
};

export function isTerminal(status: PurchaseStatus): boolean {
  return TERMINAL_PURCHASE_STATUSES.includes(status);
}

/** The transition for an event from a status, or undefined when the table does not allow it. */
export function findTransition(event: PurchaseEvent, from: PurchaseStatus): PurchaseTransition | undefined {
  return PURCHASE_TRANSITIONS.find((t) => t.event === event && t.from.includes(from));
}

export function canApply(event: PurchaseEvent, from: PurchaseStatus): boolean {
  return findTransition(event, from) !== undefined;
}

/** Whether the user accepting an offer for this game leads to a hold (the game's hold seconds > 0). */
export function acceptEvent(holdSeconds: number, holdOverride?: boolean): 'accepted_hold' | 'accepted' {
  const hold = holdOverride ?? holdSeconds > 0;
  return hold ? 'accepted_hold' : 'accepted';
}
