// The purchases feature (spec 3.2, 3.3, 3.4, 4.8–4.10; DESIGN 6, 8), wired from its stages:
//   create.ts                 POST purchase: the purchase, its debit and its listing in one transaction
//   dispatch.ts               the offer: dispatch, timed jobs, unrecorded offers, offer changes
//   dispatcher.ts             sends the offers of pending purchases, in batches (started with the worker)
//   purchase-transitions.ts   the only writer of a purchase's status after creation
// and the reads (status 4.9, history 4.10).
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import { invalidTransition, notFound, validationError } from '../../domain/errors.js';
import type { PurchaseEvent, PurchaseStatus } from '../../domain/purchase-state.js';
import type { TradingPlatform } from '../../platform/port.js';
import { createCreateStage, type CreatePurchaseInput, type MerchantRef } from './create.js';
import { createDispatchStage } from './dispatch.js';
import { createPurchaseDispatcher } from './dispatcher.js';
import { dispatchCallTimeoutMs } from './purchase-jobs.js';
import { findPurchaseWire, getPurchase, listPurchases, type PurchaseRow, type PurchaseWireRow, type PurchaseSort } from './purchase-repo.js';
import { createPurchaseTransitions, type EventOptions } from './purchase-transitions.js';
import { purchaseWire, type PurchaseWire } from './purchase-views.js';

export type { CreatePurchaseInput, MerchantRef } from './create.js';
export { dispatchCallTimeoutMs, dispatchInFlightMs, pendingLimitMs } from './purchase-jobs.js';

export interface PurchaseDeps {
  config: Pick<Config, 'depositTimeoutMs' | 'holdSeconds' | 'publicUrl' | 'purchaseBatchSize' | 'purchaseBatchesInFlight' | 'purchaseDispatchConcurrency'>;
  db: Db;
  clock: Clock;
  log: Logger;
  platform: Pick<TradingPlatform, 'checkTradeLink' | 'sendPurchaseOffer' | 'sendPurchaseOffers' | 'cancelOffer'>;
  onListingsChanged?: () => void;
}

export function createPurchaseService(deps: PurchaseDeps) {
  const { config, db, clock } = deps;
  const wire = (p: PurchaseWireRow) => purchaseWire(p, config.publicUrl);
  const transitions = createPurchaseTransitions(deps);
  const dispatch = createDispatchStage({ ...deps, transitions });
  const dispatcher = createPurchaseDispatcher(dispatch, deps.log, { concurrency: config.purchaseDispatchConcurrency, stopWaitMs: dispatchCallTimeoutMs(config) + 1000 });
  const creation = createCreateStage({ ...deps, dispatcher });

  return {
    /**
     * POST /merchant/purchase. Returns the purchase (new or, for a repeated merchant_tx_id, the
     * stored one); HTTP 200 either way. Platform errors for the user are 400 validation errors.
     */
    async create(merchant: MerchantRef, input: CreatePurchaseInput): Promise<{ purchase: PurchaseWire; created: boolean }> {
      const { row, created } = await creation.create(merchant, input);
      return { purchase: wire(row), created };
    },

    /** Applies `event` (operator and test use); 404 not found / another merchant's, 409 invalid transition. */
    async applyEvent(purchaseId: number, event: PurchaseEvent, opts: EventOptions = {}): Promise<PurchaseRow> {
      const r = await transitions.apply(purchaseId, event, opts);
      if (r.ok) return r.row;
      if (r.reason === 'not_found') throw notFound();
      throw invalidTransition(r.current, event);
    },

    /** GET /merchant/purchase/status: by id and/or merchant_tx_id (both must match when both given). */
    async status(merchantId: number, q: { id?: number; merchantTxId?: string }): Promise<PurchaseWire> {
      if (q.id === undefined && q.merchantTxId === undefined) {
        throw validationError([
          { field: 'PurchaseStatusRequest.id', code: 'required', message: 'id or merchant_tx_id is required' },
          { field: 'PurchaseStatusRequest.merchant_tx_id', code: 'required', message: 'id or merchant_tx_id is required' },
        ]);
      }
      const p = await findPurchaseWire(db, merchantId, q);
      if (!p) throw notFound();
      return wire(p);
    },

    /** GET /merchant/purchase: history with filters, sort and paging. */
    async history(merchantId: number, q: { limit: number; offset: number; status?: PurchaseStatus; dateRange?: number; search?: string; sort: PurchaseSort }) {
      const sinceDate = q.dateRange !== undefined ? new Date(clock.now().getTime() - q.dateRange * 86_400_000) : undefined;
      const { rows, total } = await listPurchases(db, merchantId, { limit: q.limit, offset: q.offset, status: q.status, sinceDate, search: q.search, sort: q.sort });
      return { data: rows.map(wire), total };
    },

    /** The per-instance dispatcher (app.ts starts it with the worker). */
    dispatcher,
    dispatch: dispatch.dispatch,
    cancelUnrecordedOffer: dispatch.cancelUnrecordedOffer,
    failIfStuckPending: dispatch.failIfStuckPending,
    expireIfDue: dispatch.expireIfDue,
    endHoldIfDue: dispatch.endHoldIfDue,
    wantsOffer: dispatch.wantsOffer,
    /** The purchase's merchant (operator-side notes such as an audit entry name it), or null if there is no such purchase. */
    merchantOf: async (id: number) => (await getPurchase(db, id))?.merchant_id ?? null,
    /** Answers the purchase as the merchant API shows it. */
    applyOfferChange: async (change: Parameters<typeof dispatch.applyOfferChange>[0]): Promise<PurchaseWire> => wire(await dispatch.applyOfferChange(change)),
  };
}

export type PurchaseService = ReturnType<typeof createPurchaseService>;
