import { describe, expect, it } from 'vitest';
import { eventsOf, isTerminal, transitionFrom, type StateMachine } from './state-machine.js';
import { DEPOSIT_CORRECTIONS, DEPOSIT_MACHINE, DEPOSIT_MOVEMENTS } from './deposit-state.js';
import { CREATION_FAIL_REASONS, LATER_FAIL_REASONS, PURCHASE_CORRECTIONS, PURCHASE_MACHINE } from './purchase-state.js';
import { WITHDRAWAL_MACHINE } from './withdrawal-state.js';

/** Every allowed `from -event-> to (movement)` of a machine. */
function rows<S extends string, E extends string, M extends string>(m: StateMachine<S, E, M, unknown>): string[] {
  const out: string[] = [];
  for (const from of m.statuses) {
    for (const event of eventsOf(m)) {
      const t = transitionFrom(m, event, from);
      if (t) out.push(`${from} -${event}-> ${t.to}${t.movement ? ` (${t.movement})` : ''}`);
    }
  }
  return out.sort();
}

describe('deposit state machine (spec 3.1)', () => {
  it('allows exactly the table rows, with the ledger movements of spec 3.4', () => {
    expect(rows(DEPOSIT_MACHINE)).toEqual(
      [
        'new -commit-> pending',
        'new -fail-> failed',
        'pending -fail-> failed',
        'pending -send-> active',
        'active -accept_hold-> hold (hold)',
        'active -accept-> completed (credit)',
        'active -decline-> canceled',
        'active -expire-> canceled',
        'active -cancel-> canceled',
        'hold -release-> completed (release)',
        'hold -revert-> reverted (revert)',
        // Corrections: the platform shows an accepted trade for a deposit the gateway closed.
        'failed -follow_hold-> hold (hold)',
        'failed -follow_accept-> completed (credit)',
        'canceled -follow_hold-> hold (hold)',
        'canceled -follow_accept-> completed (credit)',
      ].sort(),
    );
  });

  it('terminal statuses allow nothing but the corrections that follow an accepted trade from failed / canceled; only they are terminal', () => {
    const terminal = DEPOSIT_MACHINE.statuses.filter((s) => isTerminal(DEPOSIT_MACHINE, s));
    expect(terminal).toEqual(['completed', 'failed', 'canceled', 'reverted']);
    for (const s of terminal) for (const e of eventsOf(DEPOSIT_MACHINE).filter((x) => !DEPOSIT_CORRECTIONS.includes(x))) expect(transitionFrom(DEPOSIT_MACHINE, e, s)).toBeUndefined();
    for (const s of ['completed', 'reverted'] as const) for (const e of DEPOSIT_CORRECTIONS) expect(transitionFrom(DEPOSIT_MACHINE, e, s)).toBeUndefined();
    expect(transitionFrom(DEPOSIT_MACHINE, 'follow_hold', 'failed')).toMatchObject({ to: 'hold', movement: 'hold' });
    expect(transitionFrom(DEPOSIT_MACHINE, 'follow_accept', 'canceled')).toMatchObject({ to: 'completed', movement: 'credit' });
  });

  it('fail reasons fixed by the table; webhooks on hold and every terminal status', () => {
    expect(DEPOSIT_MACHINE.transitions.decline.failReason).toBe('canceled_by_user');
    expect(DEPOSIT_MACHINE.transitions.expire.failReason).toBe('canceled_by_gateway');
    expect(DEPOSIT_MACHINE.transitions.cancel.failReason).toBe('canceled_by_gateway');
    expect(DEPOSIT_MACHINE.transitions.fail.failReason).toBeUndefined();
    expect(DEPOSIT_MACHINE.statuses.filter((s) => DEPOSIT_MACHINE.onEnter[s].webhook)).toEqual(['hold', 'completed', 'failed', 'canceled', 'reverted']);
  });

  it('movements: hold moves the amount to hold, release back to available, credit to available, revert drops the hold', () => {
    expect(DEPOSIT_MOVEMENTS).toEqual({
      hold: { kind: 'deposit_hold', available: 0, hold: 1 },
      release: { kind: 'deposit_release', available: 1, hold: -1 },
      credit: { kind: 'deposit_credit', available: 1, hold: 0 },
      revert: { kind: 'deposit_revert', available: 0, hold: -1 },
    });
  });

  it('an unknown event (or an inherited property name) is no transition', () => {
    expect(transitionFrom(DEPOSIT_MACHINE, 'toString' as never, 'new')).toBeUndefined();
  });
});

describe('purchase state machine (spec 3.2)', () => {
  it('allows exactly the table rows; every way into failed, canceled or reverted refunds', () => {
    expect(rows(PURCHASE_MACHINE)).toEqual(
      [
        'pending -send-> active',
        'new -fail-> failed (refund)',
        'pending -fail-> failed (refund)',
        'active -accept_hold-> hold',
        'active -accept-> completed',
        'hold -release-> completed',
        'active -decline-> canceled (refund)',
        'active -expire-> canceled (refund)',
        'new -cancel-> canceled (refund)',
        'pending -cancel-> canceled (refund)',
        'active -cancel-> canceled (refund)',
        'hold -revert-> reverted (refund)',
        'failed -follow_hold-> hold (charge)',
        'canceled -follow_hold-> hold (charge)',
        'failed -follow_accept-> completed (charge)',
        'canceled -follow_accept-> completed (charge)',
      ].sort(),
    );
  });

  it('terminal statuses allow nothing but the corrections of a closed purchase', () => {
    const terminal = PURCHASE_MACHINE.statuses.filter((s) => isTerminal(PURCHASE_MACHINE, s));
    expect(terminal).toEqual(['completed', 'failed', 'canceled', 'reverted']);
    for (const s of terminal) for (const e of eventsOf(PURCHASE_MACHINE).filter((x) => !PURCHASE_CORRECTIONS.includes(x))) expect(transitionFrom(PURCHASE_MACHINE, e, s)).toBeUndefined();
    // Corrections leave only what the gateway closed itself (failed / canceled), never a delivered or reversed purchase.
    for (const s of ['completed', 'reverted'] as const) for (const e of PURCHASE_CORRECTIONS) expect(transitionFrom(PURCHASE_MACHINE, e, s)).toBeUndefined();
  });

  it('fail reasons fixed by the table (spec 3.3); fail and revert take the caller\'s', () => {
    expect(PURCHASE_MACHINE.transitions.decline.failReason).toBe('canceled_by_user');
    expect(PURCHASE_MACHINE.transitions.expire.failReason).toBe('buyer_too_slow');
    expect(PURCHASE_MACHINE.transitions.cancel.failReason).toBe('canceled_by_gateway');
    expect(PURCHASE_MACHINE.transitions.fail.failReason).toBeUndefined();
    expect(PURCHASE_MACHINE.transitions.revert.failReason).toBeUndefined();
    const fixed = eventsOf(PURCHASE_MACHINE).flatMap((e) => PURCHASE_MACHINE.transitions[e].failReason ?? []);
    for (const r of fixed) expect([...CREATION_FAIL_REASONS, ...LATER_FAIL_REASONS]).toContain(r);
  });

  it('entry effects: listing released on failed, canceled, reverted; sold on completed; webhooks from active on', () => {
    const { onEnter } = PURCHASE_MACHINE;
    for (const s of ['failed', 'canceled', 'reverted'] as const) expect(onEnter[s]).toEqual({ listing: 'release', webhook: true, keepsFailReason: true, terminal: true });
    expect(onEnter.completed).toEqual({ listing: 'sold', webhook: true, keepsFailReason: false, terminal: true });
    for (const s of ['active', 'hold'] as const) expect(onEnter[s]).toEqual({ listing: 'none', webhook: true, keepsFailReason: false, terminal: false });
    for (const s of ['new', 'pending'] as const) expect(onEnter[s]).toEqual({ listing: 'none', webhook: false, keepsFailReason: false, terminal: false });
  });
});

describe('withdrawal state machine (operator API)', () => {
  it('pending ends completed, failed or canceled; fail and cancel return the amount', () => {
    expect(rows(WITHDRAWAL_MACHINE)).toEqual(['pending -cancel-> canceled (return)', 'pending -complete-> completed', 'pending -fail-> failed (return)']);
    expect(WITHDRAWAL_MACHINE.statuses.filter((s) => isTerminal(WITHDRAWAL_MACHINE, s))).toEqual(['completed', 'failed', 'canceled']);
  });
});
