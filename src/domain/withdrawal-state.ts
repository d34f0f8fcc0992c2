// The withdrawal state machine (operator API), in the one form of state-machine.ts:
// pending → completed | failed | canceled; fail and cancel give the money back.
import { stateMachine } from './state-machine.js';

export const WITHDRAWAL_STATUSES = ['pending', 'completed', 'failed', 'canceled'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

export type WithdrawalEvent = 'complete' | 'fail' | 'cancel';

/** `withdrawal:<id>:return`: the amount goes back to available. */
export type WithdrawalMovement = 'return';

export const WITHDRAWAL_MACHINE = stateMachine<WithdrawalStatus, WithdrawalEvent, WithdrawalMovement, object>({
  statuses: WITHDRAWAL_STATUSES,
  transitions: {
    complete: { from: ['pending'], to: 'completed' },
    fail: { from: ['pending'], to: 'failed', movement: 'return' },
    cancel: { from: ['pending'], to: 'canceled', movement: 'return' },
  },
  onEnter: {
    pending: { terminal: false },
    completed: { terminal: true },
    failed: { terminal: true },
    canceled: { terminal: true },
  },
});
