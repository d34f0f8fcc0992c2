import { describe, expect, it } from 'vitest';
import { DEPOSIT_STATUSES, DEPOSIT_TRANSITIONS, checkDepositTransition, isDepositEvent, isTerminalDeposit, type DepositEvent } from './deposit-state.js';

describe('deposit state machine (spec 3.1)', () => {
  it('allows exactly the table rows', () => {
    const allowed: string[] = [];
    for (const from of DEPOSIT_STATUSES) {
      for (const event of Object.keys(DEPOSIT_TRANSITIONS) as DepositEvent[]) {
        const r = checkDepositTransition(from, event);
        if (r.ok) allowed.push(`${from} -${event}-> ${r.transition.to}`);
      }
    }
    expect(allowed.sort()).toEqual(
      [
        'new -commit-> pending',
        'new -fail-> failed',
        'pending -fail-> failed',
        'pending -offer_sent-> active',
        'active -accept_hold-> hold',
        'active -accept-> completed',
        'active -decline-> canceled',
        'active -expire-> canceled',
        'hold -release-> completed',
        'hold -revert-> reverted',
      ].sort(),
    );
  });

  it('terminal statuses allow nothing', () => {
    for (const s of DEPOSIT_STATUSES.filter(isTerminalDeposit)) {
      for (const e of Object.keys(DEPOSIT_TRANSITIONS) as DepositEvent[]) expect(checkDepositTransition(s, e).ok).toBe(false);
    }
  });

  it('balance effects of spec 3.4', () => {
    expect(DEPOSIT_TRANSITIONS.accept_hold.balance).toBe('hold');
    expect(DEPOSIT_TRANSITIONS.release.balance).toBe('release');
    expect(DEPOSIT_TRANSITIONS.accept.balance).toBe('credit');
    expect(DEPOSIT_TRANSITIONS.revert.balance).toBe('revert');
    expect(DEPOSIT_TRANSITIONS.decline.failReason).toBe('canceled_by_user');
    expect(isDepositEvent('accept')).toBe(true);
    expect(isDepositEvent('toString')).toBe(false);
  });
});
