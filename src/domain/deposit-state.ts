// The deposit state machine of spec 3.1, in the one form of state-machine.ts. Pure: no I/O.
import { stateMachine } from './state-machine.js';

export const DEPOSIT_STATUSES = ['new', 'pending', 'active', 'hold', 'completed', 'failed', 'canceled', 'reverted'] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];

export type DepositEvent =
  | 'commit' // new → pending: merchant_tx_id, trade link and URLs stored
  | 'send' // pending → active: the bot sent the offer
  | 'fail' // pending → failed: quote expired, price floor, timeout or error before dispatch
  | 'accept_hold' // active → hold: the user accepted, the platform applies a trade hold
  | 'accept' // active → completed: the user accepted, no hold
  | 'decline' // active → canceled: the user declined
  | 'expire' // active → canceled: trade_offer_expiry_at passed
  | 'cancel' // active → canceled: our side withdrew the offer
  | 'release' // hold → completed: the hold ended
  | 'revert' // hold → reverted: the trade was reversed during the hold
  // Corrections: the platform shows an accepted trade for a deposit the gateway had
  // closed (a late offer after an ambiguous send, an expiry race): the deposit follows the trade.
  | 'follow_hold' // failed / canceled → hold
  | 'follow_accept'; // failed / canceled → completed

/** The only events that leave a terminal status: the platform's truth over the gateway's. */
export const DEPOSIT_CORRECTIONS: readonly DepositEvent[] = ['follow_hold', 'follow_accept'];

/** Ledger movements of spec 3.4 (key `deposit:<id>:<movement>`). */
export type DepositMovement = 'hold' | 'release' | 'credit' | 'revert';

export interface DepositEntry {
  /** The merchant is notified (spec 3.1 / 6.1): not new, pending, active. */
  webhook: boolean;
}

export const DEPOSIT_MACHINE = stateMachine<DepositStatus, DepositEvent, DepositMovement, DepositEntry>({
  statuses: DEPOSIT_STATUSES,
  transitions: {
    commit: { from: ['new'], to: 'pending' },
    send: { from: ['pending'], to: 'active' },
    // An intent or draft may fail before it was ever pending (hosted page, internal error).
    fail: { from: ['new', 'pending'], to: 'failed' },
    accept_hold: { from: ['active'], to: 'hold', movement: 'hold' },
    accept: { from: ['active'], to: 'completed', movement: 'credit' },
    decline: { from: ['active'], to: 'canceled', failReason: 'canceled_by_user' },
    expire: { from: ['active'], to: 'canceled', failReason: 'canceled_by_gateway' },
    cancel: { from: ['active'], to: 'canceled', failReason: 'canceled_by_gateway' },
    release: { from: ['hold'], to: 'completed', movement: 'release' },
    revert: { from: ['hold'], to: 'reverted', movement: 'revert' },
    follow_hold: { from: ['failed', 'canceled'], to: 'hold', movement: 'hold' },
    follow_accept: { from: ['failed', 'canceled'], to: 'completed', movement: 'credit' },
  },
  // Pending: the watchdog job; active: the offer-expiry job; hold: the hold-end job; completed:
  // the items go to the catalogue; terminal: the user's assets are no longer reserved.
  onEnter: {
    new: { webhook: false, terminal: false },
    pending: { webhook: false, terminal: false },
    active: { webhook: false, terminal: false },
    hold: { webhook: true, terminal: false },
    completed: { webhook: true, terminal: true },
    failed: { webhook: true, terminal: true },
    canceled: { webhook: true, terminal: true },
    reverted: { webhook: true, terminal: true },
  },
});

/** Each movement's ledger kind and deltas as multiples of the deposit's amount. */
export const DEPOSIT_MOVEMENTS: Record<DepositMovement, { kind: string; available: number; hold: number }> = {
  hold: { kind: 'deposit_hold', available: 0, hold: 1 },
  release: { kind: 'deposit_release', available: 1, hold: -1 },
  credit: { kind: 'deposit_credit', available: 1, hold: 0 },
  revert: { kind: 'deposit_revert', available: 0, hold: -1 },
};
