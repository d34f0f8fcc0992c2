// The deposit state machine of spec 3.1, as data. Pure: no I/O. The deposit service applies a
// transition with `UPDATE ... WHERE status = <from>`, so a concurrent change loses cleanly.

export const DEPOSIT_STATUSES = ['new', 'pending', 'active', 'hold', 'completed', 'failed', 'canceled', 'reverted'] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];

export const TERMINAL_DEPOSIT_STATUSES: readonly DepositStatus[] = ['completed', 'failed', 'canceled', 'reverted'];

export type DepositEvent =
  | 'commit' // new → pending: merchant_tx_id, trade link and URLs stored
  | 'offer_sent' // pending → active: the bot sent the offer
  | 'fail' // pending → failed: quote expired, price floor, timeout or error before dispatch
  | 'accept_hold' // active → hold: the user accepted, the platform applies a trade hold
  | 'accept' // active → completed: the user accepted, no hold
  | 'decline' // active → canceled: the user declined
  | 'expire' // active → canceled: trade_offer_expiry_at passed
  | 'release' // hold → completed: the hold ended
  | 'revert'; // hold → reverted: the trade was reversed during the hold

export type BalanceEffect = 'hold' | 'release' | 'credit' | 'revert' | null;

export interface DepositTransition {
  from: readonly DepositStatus[];
  to: DepositStatus;
  /** Ledger movement of spec 3.4 applied with the change. */
  balance: BalanceEffect;
  /** fail_reason written by the transition itself (others come with the event). */
  failReason?: string;
}

export const DEPOSIT_TRANSITIONS: Record<DepositEvent, DepositTransition> = {
  commit: { from: ['new'], to: 'pending', balance: null },
  offer_sent: { from: ['pending'], to: 'active', balance: null },
  // An intent or draft may fail before it was ever pending (hosted page, internal error).
  fail: { from: ['new', 'pending'], to: 'failed', balance: null },
  accept_hold: { from: ['active'], to: 'hold', balance: 'hold' },
  accept: { from: ['active'], to: 'completed', balance: 'credit' },
  decline: { from: ['active'], to: 'canceled', balance: null, failReason: 'canceled_by_user' },
  expire: { from: ['active'], to: 'canceled', balance: null, failReason: 'canceled_by_gateway' },
  release: { from: ['hold'], to: 'completed', balance: 'release' },
  revert: { from: ['hold'], to: 'reverted', balance: 'revert' },
};

/** Statuses that notify the merchant (spec 3.1 / 6.1): not new, pending, active. */
export const WEBHOOK_DEPOSIT_STATUSES: readonly DepositStatus[] = ['hold', 'completed', 'failed', 'canceled', 'reverted'];

export type TransitionCheck = { ok: true; transition: DepositTransition } | { ok: false; from: DepositStatus; event: DepositEvent };

/** Whether `event` may happen to a deposit in status `from`. */
export function checkDepositTransition(from: DepositStatus, event: DepositEvent): TransitionCheck {
  const t = DEPOSIT_TRANSITIONS[event];
  if (t && t.from.includes(from)) return { ok: true, transition: t };
  return { ok: false, from, event };
}

export function isDepositEvent(value: unknown): value is DepositEvent {
  return typeof value === 'string' && Object.hasOwn(DEPOSIT_TRANSITIONS, value);
}

export function isTerminalDeposit(status: DepositStatus): boolean {
  return TERMINAL_DEPOSIT_STATUSES.includes(status);
}
