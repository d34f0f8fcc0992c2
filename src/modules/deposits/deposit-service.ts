// The deposits feature (spec 3.1, 4.2–4.7), wired from its stages:
//   quote.ts        inventory, get-prices, deposit-preview (before any commit)
//   commit.ts       create-deposit and create-deposit-by-hash-name (a pending deposit with its items)
//   offer.ts        sending and recording the offer, unrecorded offers, offer changes
//   deposit-transitions.ts  the only writer of a deposit's status (ledger, webhook, jobs)
// and the status read (4.7).
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import { notFound, validationError } from '../../domain/errors.js';
import type { TradingPlatform } from '../../platform/port.js';
import type { MerchantRow } from '../../db/tables/merchants.js';
import type { PricingService } from '../pricing/pricing-service.js';
import { createCommitStage } from './commit.js';
import * as repo from './deposit-repo.js';
import { createDepositTransitions } from './deposit-transitions.js';
import { statusView } from './deposit-views.js';
import { createDepositOfferStage } from './offer.js';
import { createQuoteStage } from './quote.js';

export type { CreateDepositRequest, HashNameCommitRequest } from './commit.js';
export type { GetPricesRequest, PreviewRequest, TradeKey } from './quote.js';

export interface DepositDeps {
  db: Db;
  config: Pick<Config, 'depositTimeoutMs' | 'holdSeconds' | 'quoteTtlSeconds' | 'webhookAllowPrivate'>;
  clock: Clock;
  log: Logger;
  platform: Pick<TradingPlatform, 'checkTradeLink' | 'loadInventory' | 'sendDepositOffer' | 'cancelOffer' | 'expireOffer' | 'resolveOffer' | 'holdMayEnd'>;
  pricing: Pick<PricingService, 'quote' | 'quoteItem' | 'price' | 'pricedItem' | 'assertFresh' | 'loadedAt' | 'version' | 'basesAt' | 'ensureBases'>;
  /** Told after a commit that completed deposits (their items were listed): this instance's catalogue pages read it at once. */
  onListingsChanged?: () => void;
}

export function createDepositService(deps: DepositDeps) {
  const { db } = deps;
  const transitions = createDepositTransitions(deps);
  const quote = createQuoteStage(deps);
  const offer = createDepositOfferStage({ ...deps, transitions });
  const commit = createCommitStage({ ...deps, quote, transitions, offer });

  /** 4.7 status: by id and/or merchant_tx_id. */
  async function status(merchant: MerchantRow, q: { id?: number; merchant_tx_id?: string }) {
    if (q.id === undefined && (q.merchant_tx_id === undefined || q.merchant_tx_id === '')) {
      throw validationError([{ field: 'id', code: 'required', message: 'id or merchant_tx_id is required' }]);
    }
    const d = await repo.findDepositStatus(db, merchant.id, { id: q.id, merchantTxId: q.merchant_tx_id || undefined });
    if (!d) throw notFound();
    return statusView(d);
  }

  return {
    inventory: quote.inventory,
    getPrices: quote.getPrices,
    preview: quote.preview,
    createDeposit: commit.createDeposit,
    createDepositByHashName: commit.createDepositByHashName,
    status,
    /** For jobs: the transition, or null when the deposit is gone or has moved on. */
    tryTransition: transitions.tryApply,
    applyOfferChange: offer.applyOfferChange,
    cancelUnrecordedOffer: offer.cancelUnrecordedOffer,
    /** Job deposit_pending_watchdog. */
    resolvePending: offer.resolvePending,
    /** Job deposit_offer_expire. */
    expireIfGone: offer.expireIfGone,
    /** Job deposit_hold_end. */
    endHoldIfClear: offer.endHoldIfClear,
    /** The deposit's merchant (operator-side notes such as an audit entry name it), or null if there is no such deposit. */
    merchantOf: async (id: number) => (await repo.findDepositById(db, id))?.merchant_id ?? null,
    /** Whether the deposit still wants this offer (the platform asks before confirming or keeping one). */
    wantsOffer: async (id: number, tradeOfferId: string) => {
      const d = await repo.findDepositById(db, id);
      return d?.status === 'pending' || (d?.status === 'active' && d.trade_offer_id === tradeOfferId);
    },
  };
}

export type DepositService = ReturnType<typeof createDepositService>;
