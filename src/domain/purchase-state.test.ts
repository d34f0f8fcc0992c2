import { describe, expect, it } from 'vitest';
import {
  CREATION_FAIL_REASONS,
  LATER_FAIL_REASONS,
  PURCHASE_STATUSES,
  PURCHASE_TRANSITIONS,
  STATUS_EFFECTS,
  acceptEvent,
  canApply,
  findTransition,
  isTerminal,
  type PurchaseEvent,
} from './purchase-state.js';

const EVENTS = [...new Set(PURCHASE_TRANSITIONS.map((t) => t.event))] as PurchaseEvent[];

describe('purchase state machine (spec 3.2)', () => {
  it('allows exactly the table rows', () => {
    const allowed: string[] = [];
    for (const from of PURCHASE_STATUSES) {
      for (const event of EVENTS) {
        const t = findTransition(event, from);
        if (t) allowed.push(`${from} -${event}-> ${t.to}`);
        expect(canApply(event, from)).toBe(t !== undefined);
      }
    }
    expect(allowed.sort()).toEqual(
      [
        'pending -offer_sent-> active',
        'new -dispatch_failed-> failed',
        'pending -dispatch_failed-> failed',
        'active -accepted_hold-> hold',
        'active -accepted-> completed',
        'hold -hold_ended-> completed',
        'active -declined-> canceled',
        'active -expired-> canceled',
        'new -canceled-> canceled',
        'pending -canceled-> canceled',
        'active -canceled-> canceled',
        'hold -reverted-> reverted',
      ].sort(),
    );
  });

  it('every event is in the table; terminal statuses allow nothing', () => {
    expect(EVENTS.sort()).toEqual(['accepted', 'accepted_hold', 'canceled', 'declined', 'dispatch_failed', 'expired', 'hold_ended', 'offer_sent', 'reverted']);
    expect(PURCHASE_STATUSES.filter(isTerminal)).toEqual(['completed', 'failed', 'canceled', 'reverted']);
    for (const s of PURCHASE_STATUSES.filter(isTerminal)) {
      for (const e of EVENTS) expect(findTransition(e, s)).toBeUndefined();
    }
  });

  it('fail reasons fixed by the table (spec 3.3); the others come with the event', () => {
    expect(findTransition('declined', 'active')?.failReason).toBe('canceled_by_user');
    expect(findTransition('expired', 'active')?.failReason).toBe('buyer_too_slow');
    for (const from of ['new', 'pending', 'active'] as const) expect(findTransition('canceled', from)?.failReason).toBe('canceled_by_gateway');
    // dispatch_failed (provider_unavailable, trade_url_error, timeout_error, gateway_too_slow) and
    // reverted (user_reverted, gateway_reverted) take the caller's reason
    expect(findTransition('dispatch_failed', 'pending')?.failReason).toBeUndefined();
    expect(findTransition('reverted', 'hold')?.failReason).toBeUndefined();
    const fixed = PURCHASE_TRANSITIONS.flatMap((t) => (t.failReason ? [t.failReason] : []));
    for (const r of fixed) expect([...CREATION_FAIL_REASONS, ...LATER_FAIL_REASONS]).toContain(r);
    expect(LATER_FAIL_REASONS).toEqual(
      expect.arrayContaining(['canceled_by_user', 'buyer_too_slow', 'gateway_too_slow', 'timeout_error', 'canceled_by_gateway', 'trade_url_error', 'user_reverted', 'gateway_reverted']),
    );
  });

  it('status effects of spec 3.4: every failed, canceled or reverted purchase is refunded and its listing released', () => {
    for (const s of ['failed', 'canceled', 'reverted'] as const) {
      expect(STATUS_EFFECTS[s]).toEqual({ refund: true, listing: 'release', webhook: true, keepsFailReason: true });
    }
    expect(STATUS_EFFECTS.completed).toEqual({ refund: false, listing: 'sold', webhook: true, keepsFailReason: false });
    for (const s of ['active', 'hold'] as const) expect(STATUS_EFFECTS[s]).toMatchObject({ refund: false, listing: 'none', webhook: true });
    for (const s of ['new', 'pending'] as const) expect(STATUS_EFFECTS[s]).toEqual({ refund: false, listing: 'none', webhook: false, keepsFailReason: false });
  });

  it('acceptEvent: the game hold decides unless overridden', () => {
    expect(acceptEvent(604800)).toBe('accepted_hold');
    expect(acceptEvent(0)).toBe('accepted');
    expect(acceptEvent(604800, false)).toBe('accepted');
    expect(acceptEvent(0, true)).toBe('accepted_hold');
  });
});
