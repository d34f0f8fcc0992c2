// The purchase's corrections after the platform (docs/decisions/020-records-follow-the-platform.md): what the platform
// shows of a trade the gateway had already settled otherwise — an accepted trade for a purchase it
// closed (the purchase follows the trade), a reversal after completion (the amount returns). The
// offer layer (src/platform/offers.ts) calls them for the platform's own reports only.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import type { OfferEventOf } from '../../platform/offers.js';
import type { OfferChange } from '../../platform/port.js';
import { insertAudit } from '../accounts/audit-log.js';
import { applyMovement, InsufficientFundsError } from '../ledger/ledger-moves.js';
import type { PurchaseRow } from './purchase-repo.js';
import type { PurchaseTransitions } from './purchase-transitions.js';

export interface CorrectionDeps {
  db: Db;
  config: Pick<Config, 'holdSeconds'>;
  clock: Clock;
  log: Logger;
  transitions: PurchaseTransitions;
}

export function purchaseCorrections(deps: CorrectionDeps) {
  const { db, config, clock, log, transitions } = deps;
  return {
    // A purchase closed (refunded, listing back on sale) whose offer the platform shows accepted:
    // the buyer has the item, so the purchase follows the trade (follow_hold / follow_accept: the
    // refund taken back, the listing its own again, the webhook), audited and alerted. Where the
    // merchant's available balance no longer covers the amount it stays closed and the operator is
    // alerted to settle it. The platform's offers needing our confirmation are only confirmed while
    // the purchase wants them, so this should stay rare.
    async follow(p: PurchaseRow, e: OfferEventOf, change: OfferChange): Promise<PurchaseRow> {
      const event = e.event === 'accept_hold' ? 'follow_hold' : 'follow_accept';
      const detail = { purchase_id: p.id, from: p.status, fail_reason: p.fail_reason, trade_offer_id: change.tradeOfferId, amount: p.amount };
      try {
        const r = await db.transaction().execute(async (trx) => {
          const t = await transitions.transitionIn(trx, p, event, {
            holdEndDate: e.holdEndsAt ?? new Date(clock.now().getTime() + config.holdSeconds[p.game] * 1000),
            ...(change.bot && change.tradeOfferId ? { offer: { bot: change.bot, tradeOfferId: change.tradeOfferId, expiresAt: new Date(p.offer_expires_at ?? clock.now()) } } : {}),
          });
          if (t.ok) await insertAudit(trx, { merchantId: p.merchant_id, userId: null, actor: 'platform', action: 'purchase_follows_platform', ip: null, detail: { ...detail, to: t.row.status } });
          return t;
        });
        if (!r.ok) throw new Error(`purchase ${p.id} could not follow the platform's accepted trade (${r.reason})`);
        log.error({ purchaseId: p.id, from: p.status, to: r.row.status, tradeOfferId: change.tradeOfferId }, 'purchase closed by the gateway was accepted on the platform: it follows the trade (charged again)');
        return r.row;
      } catch (err) {
        if (!(err instanceof InsufficientFundsError)) throw err;
      }
      log.error({ purchaseId: p.id, status: p.status, tradeOfferId: change.tradeOfferId }, 'purchase closed by the gateway was accepted on the platform and the balance cannot cover it again: the buyer has the item; operator action needed');
      await insertAudit(db, { merchantId: p.merchant_id, userId: null, actor: 'platform', action: 'purchase_accepted_after_close', ip: null, detail });
      return p;
    },
    // The buyer reversed a completed purchase's trade (seen after its hold): the item is back with
    // the bot, so — as a reversal during the hold refunds — the amount returns to the merchant's
    // available balance as movement purchase_late_revert (key purchase:<id>:late_revert, once), and
    // the operator is alerted (error log, audit). The purchase stays completed: the spec has no
    // status after completed, so no webhook; the item is listed again by the next bot sync.
    async reversedAfterCompletion(p: PurchaseRow, change: OfferChange): Promise<PurchaseRow> {
      await db.transaction().execute(async (trx) => {
        const m = await applyMovement(trx, { merchantId: p.merchant_id, key: `purchase:${p.id}:late_revert`, kind: 'purchase_late_revert', availableDelta: p.amount, holdDelta: 0, refType: 'purchase', refId: p.id });
        if (m.status === 'duplicate') return;
        await insertAudit(trx, {
          merchantId: p.merchant_id, userId: null, actor: 'platform', action: 'purchase_reversed_after_completion', ip: null,
          detail: { purchase_id: p.id, trade_offer_id: change.tradeOfferId, amount: p.amount, refunded: true },
        });
      });
      log.error({ purchaseId: p.id, tradeOfferId: change.tradeOfferId }, 'completed purchase reversed on the platform: the item is back with the bot and the amount back with the merchant (purchase_late_revert)');
      return p;
    },
  };
}
