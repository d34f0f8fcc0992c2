// The only writer of a purchase's status after creation. A transition of the state machine
// (src/domain/purchase-state.ts) is one guarded UPDATE (WHERE status = <from>) and, in the same
// transaction, the webhook, the timed jobs, the refund (`purchase:<id>:refund`, only after a
// reserve; late, so the balances row lock is held briefly) and — last, for the lock order of
// purchase-repo.ts — the listing effect (back on sale / sold). Answers a result, never throws for a refused transition.
import type { Db, Trx } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import { PURCHASE_MACHINE, type PurchaseEvent, type PurchaseFailReason } from '../../domain/purchase-state.js';
import { transitionFrom } from '../../domain/state-machine.js';
import type { TransitionResult } from '../../platform/offers.js';
import type { SentOffer } from '../../platform/port.js';
import { applyMovement } from '../ledger/ledger-repo.js';
import { addJobs } from '../../jobs/enqueue.js';
import { enqueueWebhook, enqueueWebhooks } from '../webhooks/outbox.js';
import { purchaseExpiryJob, schedulePurchaseExpiry, schedulePurchaseHoldEnd } from './purchase-jobs.js';
import {
  findPurchase,
  getPurchase,
  ledgerKeyExists,
  markListingSold,
  recordOffersGuarded,
  releaseListing,
  updatePurchaseGuarded,
  type PurchaseRow,
} from './purchase-repo.js';
import { purchaseWebhookPayload } from './purchase-views.js';

export interface EventOptions {
  /** Scope to one merchant: another merchant's purchase is not found. */
  merchantId?: number;
  failReason?: PurchaseFailReason;
  /** The real cause of a failure (fail_cause, migration 047): what the platform last answered. */
  failCause?: string;
  holdEndDate?: Date;
  offer?: SentOffer;
}

/** A transition inside a transaction: applied, refused, or lost to a concurrent change (read again). */
export type InTrxResult = { ok: true; row: PurchaseRow } | { ok: false; reason: 'invalid_transition'; current: string } | { ok: false; reason: 'lost_race' };

export function createPurchaseTransitions(deps: { db: Db; clock: Clock; onListingsChanged?: () => void }) {
  const { db, clock } = deps;

  /** The transition `event` of the purchase `cur` (as read in `trx`). */
  async function transitionIn(trx: Trx, cur: PurchaseRow, event: PurchaseEvent, opts: EventOptions): Promise<InTrxResult> {
    const t = transitionFrom(PURCHASE_MACHINE, event, cur.status);
    if (!t) return { ok: false, reason: 'invalid_transition', current: cur.status };
    const now = clock.now();
    const patch: Partial<PurchaseRow> = { status: t.to, updated_at: now };
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
    const p = await updatePurchaseGuarded(trx, cur.id, cur.status, patch);
    if (!p) return { ok: false, reason: 'lost_race' };
    const entry = PURCHASE_MACHINE.onEnter[p.status];
    if (entry.webhook) {
      await enqueueWebhook(trx, { merchantId: p.merchant_id, kind: 'purchase', recordId: p.id, status: p.status, payload: purchaseWebhookPayload(p) });
    }
    if (p.status === 'active' && p.offer_expires_at) await schedulePurchaseExpiry(trx, p.id, new Date(p.offer_expires_at));
    if (p.status === 'hold' && p.hold_end_date) await schedulePurchaseHoldEnd(trx, p.id, new Date(p.hold_end_date));
    // The refund after the webhook and jobs: the balances row lock it takes is held to the commit.
    if (t.movement === 'refund' && p.amount > 0 && (await ledgerKeyExists(trx, `purchase:${p.id}:reserve`))) {
      await applyMovement(trx, { merchantId: p.merchant_id, key: `purchase:${p.id}:refund`, kind: 'purchase_refund', availableDelta: p.amount, holdDelta: 0, refType: 'purchase', refId: p.id });
    }
    if (p.listing_id) {
      if (entry.listing === 'release') await releaseListing(trx, p.listing_id, p.id);
      if (entry.listing === 'sold') await markListingSold(trx, p.listing_id, p.id);
    }
    return { ok: true, row: p };
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
   * 'send' (pending → active) of several purchases, each with its offer, in one transaction of
   * three statements (the guarded update, the webhook events, the offer-expiry jobs) instead of a
   * transaction of its own each: the dispatcher records what one round of sends answered. The
   * same effects as transitionIn; answers the purchases that moved (one no longer pending is not
   * among them).
   */
  async function sendMany(sent: Array<{ id: number; offer: SentOffer }>): Promise<PurchaseRow[]> {
    const t = transitionFrom(PURCHASE_MACHINE, 'send', 'pending');
    const entry = t && PURCHASE_MACHINE.onEnter[t.to];
    // What this batched form leaves out must not be needed (kept in step with the state machine).
    if (!t || !entry || t.movement || entry.listing !== 'none' || entry.keepsFailReason || t.to === 'hold') {
      throw new Error('purchase send: the state machine changed; sendMany no longer applies');
    }
    if (sent.length === 0) return [];
    const now = clock.now();
    return db.transaction().execute(async (trx) => {
      const rows = await recordOffersGuarded(
        trx,
        t.to,
        sent.map(({ id, offer }) => ({ id, tradeOfferId: offer.tradeOfferId, botId: offer.bot.id, botName: offer.bot.name, expiresAt: offer.expiresAt })),
        now,
      );
      rows.sort((a, b) => a.id - b.id);
      if (entry.webhook) {
        await enqueueWebhooks(
          trx,
          rows.map((p) => ({ merchantId: p.merchant_id, kind: 'purchase' as const, recordId: p.id, status: p.status, payload: purchaseWebhookPayload(p) })),
        );
      }
      if (t.to === 'active') {
        await addJobs(trx, rows.filter((p) => p.offer_expires_at).map((p) => purchaseExpiryJob(p.id, new Date(p.offer_expires_at!))));
      }
      return rows;
    });
  }

  return { transitionIn, apply, sendMany };
}

export type PurchaseTransitions = ReturnType<typeof createPurchaseTransitions>;
