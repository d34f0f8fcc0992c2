// The only writer of a purchase's status after creation (its creation: purchase_create_batch, via
// create-repo.ts). A transition of the state machine (src/domain/purchase-state.ts), one or several
// at once (transitionsIn), is one guarded UPDATE (WHERE status = <from>) and, in the same
// transaction, the webhook, the timed jobs, the refund (`purchase:<id>:refund`, only after a
// reserve; late, so the balances row lock is held briefly) and — last, for the lock order of
// purchase-repo.ts — the listing effect (back on sale / sold). Answers a result, never throws for a refused transition.
import type { Db, Trx } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import { PURCHASE_MACHINE, type PurchaseEvent, type PurchaseFailReason } from '../../domain/purchase-state.js';
import { transitionFrom } from '../../domain/state-machine.js';
import type { TransitionResult } from '../../platform/offers.js';
import type { SentOffer } from '../../platform/port.js';
import { applyMovement } from '../ledger/ledger-moves.js';
import { addJobs } from '../../jobs/enqueue.js';
import { enqueueWebhooks } from '../webhooks/outbox.js';
import { purchaseHoldEndJob } from './purchase-jobs.js';
import {
  findPurchase,
  getPurchase,
  changePurchasesGuarded,
  ledgerKeyExists,
  markListingSold,
  releaseListing,
  lockListings,
  reserveReleasedListing,
  type PurchasePatch,
  type PurchaseRow,
} from './purchase-repo.js';
import { purchaseWebhookPayload } from './purchase-views.js';

export interface EventOptions {
  /** Scope to one merchant: another merchant's purchase is not found. */
  merchantId?: number;
  failReason?: PurchaseFailReason;
  /** The real cause of a failure (fail_cause): what the platform last answered. */
  failCause?: string;
  holdEndDate?: Date;
  offer?: SentOffer;
}

/** A transition inside a transaction: applied, refused, or lost to a concurrent change (read again). */
export type InTrxResult = { ok: true; row: PurchaseRow } | { ok: false; reason: 'invalid_transition'; current: string } | { ok: false; reason: 'lost_race' };

export function createPurchaseTransitions(deps: { db: Db; clock: Clock; onListingsChanged?: () => void }) {
  const { db, clock } = deps;

  /**
   * The transitions of several purchases (as read in `trx`: their id and status), the one writer of
   * a purchase's status after creation whatever their number: one guarded update for all of them
   * (purchase-repo.ts changePurchasesGuarded: WHERE status = <as read>), then one statement for
   * their webhooks and one for their timed jobs, then per purchase its refund (after a reserve;
   * late, so the balances row lock is held briefly) and — last, for the lock order of
   * purchase-repo.ts — the listing effect (back on sale / sold). Answers a result per change.
   */
  async function transitionsIn(trx: Trx, changes: Array<{ cur: Pick<PurchaseRow, 'id' | 'status'>; event: PurchaseEvent; opts: EventOptions }>): Promise<InTrxResult[]> {
    const now = clock.now();
    const plans = changes.map(({ cur, event, opts }) => {
      const t = transitionFrom(PURCHASE_MACHINE, event, cur.status);
      if (!t) return { cur, t };
      const patch: PurchasePatch = { status: t.to, updated_at: now };
      const failReason = opts.failReason ?? t.failReason;
      if (PURCHASE_MACHINE.onEnter[t.to].keepsFailReason && failReason) patch.fail_reason = failReason;
      if (opts.failCause) patch.fail_cause = opts.failCause;
      if (t.to === 'hold') patch.hold_end_date = opts.holdEndDate ?? now;
      if (opts.offer) {
        patch.trade_offer_id = opts.offer.tradeOfferId;
        patch.bot_id = opts.offer.bot.id;
        patch.bot_name = opts.offer.bot.name;
        patch.offer_expires_at = opts.offer.expiresAt;
      }
      return { cur, t, patch };
    });
    const valid = plans.filter((x) => x.t && x.patch);
    const rows = await changePurchasesGuarded(trx, valid.map((x) => ({ id: x.cur.id, from: x.cur.status, patch: x.patch! })));
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    const moved = valid.flatMap((x) => (byId.has(Number(x.cur.id)) ? [{ t: x.t!, p: byId.get(Number(x.cur.id))! }] : [])).sort((a, b) => a.p.id - b.p.id);

    const webhooks = moved.filter(({ p }) => PURCHASE_MACHINE.onEnter[p.status].webhook);
    if (webhooks.length) {
      await enqueueWebhooks(trx, webhooks.map(({ p }) => ({ merchantId: p.merchant_id, kind: 'purchase' as const, recordId: p.id, status: p.status, payload: purchaseWebhookPayload(p) })));
    }
    const jobs = moved.flatMap(({ p }) => [
      ...(p.status === 'hold' && p.hold_end_date ? [purchaseHoldEndJob(p.id, new Date(p.hold_end_date))] : []),
    ]);
    if (jobs.length) await addJobs(trx, jobs);
    // The listings this batch updates after a refund or a charge are locked before the balances
    // row (the lock order of purchase-repo.ts): a completed deposit reversed late takes its
    // listings, reserved ones included, and then the same merchant's balances row (offer.ts).
    const relisted = moved.flatMap(({ t, p }) => (p.listing_id && (t.movement === 'refund' || t.movement === 'charge') ? [p.listing_id] : []));
    if (relisted.length) await lockListings(trx, relisted);
    for (const { t, p } of moved) {
      // The refund after the webhook and jobs: the balances row lock it takes is held to the commit.
      if (t.movement === 'refund' && p.amount > 0 && (await ledgerKeyExists(trx, `purchase:${p.id}:reserve`))) {
        // A purchase that followed the platform after its refund was charged again: refunded once more.
        const key = (await ledgerKeyExists(trx, `purchase:${p.id}:follow`)) ? `purchase:${p.id}:follow_refund` : `purchase:${p.id}:refund`;
        await applyMovement(trx, { merchantId: p.merchant_id, key, kind: 'purchase_refund', availableDelta: p.amount, holdDelta: 0, refType: 'purchase', refId: p.id });
      }
      // A correction (the buyer has the item after all): the refund is taken back — refused when the
      // available balance does not cover it (InsufficientFundsError: the caller alerts the operator)
      // — and the listing, back on sale since, is the purchase's again.
      if (t.movement === 'charge' && p.amount > 0 && (await ledgerKeyExists(trx, `purchase:${p.id}:refund`))) {
        await applyMovement(trx, { merchantId: p.merchant_id, key: `purchase:${p.id}:follow`, kind: 'purchase_follow', availableDelta: -p.amount, holdDelta: 0, refType: 'purchase', refId: p.id });
      }
      if (t.movement === 'charge' && p.listing_id) await reserveReleasedListing(trx, p.listing_id, p.id);
      const entry = PURCHASE_MACHINE.onEnter[p.status];
      if (p.listing_id) {
        if (entry.listing === 'release') await releaseListing(trx, p.listing_id, p.id);
        if (entry.listing === 'sold') await markListingSold(trx, p.listing_id, p.id);
      }
    }
    return plans.map((x): InTrxResult => {
      if (!x.t) return { ok: false, reason: 'invalid_transition', current: x.cur.status };
      const row = byId.get(Number(x.cur.id));
      return row ? { ok: true, row } : { ok: false, reason: 'lost_race' };
    });
  }

  /** The transition `event` of the purchase `cur` (as read in `trx`): transitionsIn of one. */
  async function transitionIn(trx: Trx, cur: PurchaseRow, event: PurchaseEvent, opts: EventOptions): Promise<InTrxResult> {
    return (await transitionsIn(trx, [{ cur, event, opts }]))[0]!;
  }

  /**
   * `event` in a transaction of its own. A concurrent change is retried against the new status,
   * so exactly one of two racing events wins.
   */
  async function apply(purchaseId: number, event: PurchaseEvent, opts: EventOptions = {}): Promise<TransitionResult<PurchaseRow>> {
    for (let attempt = 0; ; attempt++) {
      const r = await db.transaction().execute(async (trx): Promise<TransitionResult<PurchaseRow> | undefined> => {
        const cur = opts.merchantId !== undefined ? await findPurchase(trx, opts.merchantId, { id: purchaseId }) : await getPurchase(trx, purchaseId);
        if (!cur) return { ok: false, reason: 'not_found' };
        const res = await transitionIn(trx, cur, event, opts);
        return res.ok || res.reason === 'invalid_transition' ? res : undefined;
      });
      if (r?.ok && r.row.listing_id) deps.onListingsChanged?.(); // a listing may be back on sale
      if (r) return r;
      if (attempt >= 5) throw new Error(`purchase ${purchaseId}: too many concurrent status changes`);
    }
  }

  /**
   * 'send' (pending → active) of several purchases, each with its offer, in one transaction
   * (transitionsIn: the guarded update, the webhook events) instead of a
   * transaction of its own each: the dispatcher records what one round of sends answered. Answers
   * the purchases that moved (one no longer pending is not among them).
   */
  async function sendMany(sent: Array<{ id: number; offer: SentOffer }>): Promise<PurchaseRow[]> {
    if (sent.length === 0) return [];
    return db.transaction().execute(async (trx) => {
      const results = await transitionsIn(trx, sent.map(({ id, offer }) => ({ cur: { id, status: 'pending' as const }, event: 'send' as const, opts: { offer } })));
      return results.flatMap((r) => (r.ok ? [r.row] : []));
    });
  }

  return { transitionIn, apply, sendMany };
}

export type PurchaseTransitions = ReturnType<typeof createPurchaseTransitions>;
