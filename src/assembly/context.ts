// The composition root: every service is built here, once, from the base dependencies, and given
// only what it uses. The route, task and start-up lists of this folder hand the finished context to
// the features, each of which declares the narrow part it takes (features never import this folder).
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Clock } from '../domain/clock.js';
import { createMerchantService } from '../modules/merchants/merchant-service.js';
import { createLedgerService } from '../modules/ledger/ledger-service.js';
import { createWebhookService } from '../modules/webhooks/webhook-service.js';
import { createPricingService } from '../modules/pricing/pricing-service.js';
import { createDepositService } from '../modules/deposits/deposit-service.js';
import { createPlatform } from '../platform/index.js';
import type { TradingPlatform } from '../platform/port.js';
import type { SessionProvider } from '../platform/steam/session.js';
import { createCatalogueService } from '../modules/catalogue/catalogue-service.js';
import { createPurchaseService } from '../modules/purchases/purchase-service.js';
import { createIntentService } from '../modules/hosted-page/intent-service.js';
import { createHostedService } from '../modules/hosted-page/hosted-service.js';
import { createBotService } from '../modules/bots/bot-service.js';
import { createBotStockSync } from '../modules/catalogue/bot-stock.js';
import { createReconcileService } from '../modules/reconcile/reconcile-service.js';
import { createAccountsService } from '../modules/accounts/accounts-service.js';
import { createEventsService } from '../modules/events/events-service.js';
import { createPriceAdminService } from '../modules/pricing/price-admin-service.js';
import { createJobRelay } from '../jobs/relay.js';
import type { CommitTaps } from '../db/commit-taps.js';

export interface BaseContext {
  config: Config;
  db: Db;
  pool: pg.Pool;
  /** After-commit signals of `db` (the job relay and the webhook dispatcher are woken by them). */
  commitTaps: CommitTaps;
  clock: Clock;
  log: Logger;
  /** PLATFORM=steam: the bots' sign-in (default steam-session); a stand-in platform's tests pass their own. */
  steamSessions?: SessionProvider;
}

export function createContext(base: BaseContext) {
  const { config, db, clock, log } = base;
  // Moves committed job_outbox rows into graphile-worker (app.ts pokes it after commits, starts its poll).
  const jobRelay = createJobRelay({ db, log, pollMs: config.jobRelayPollMs });
  const merchants = createMerchantService(db, config);
  const ledger = createLedgerService(db, merchants);
  const webhooks = createWebhookService({ db, log, config, merchants });
  const pricing = createPricingService({ config, log, db });
  const platform: TradingPlatform = createPlatform({ config, db, clock, log, itemsFor: pricing.sandboxItems, steamSessions: base.steamSessions });
  const catalogue = createCatalogueService(base);
  const deposits = createDepositService({ db, config, clock, log, platform, pricing, onListingsChanged: catalogue.noteLocalWrite });
  const purchases = createPurchaseService({ db, config, clock, log, platform, onListingsChanged: catalogue.noteLocalWrite });
  const intents = createIntentService({ db, config, platform, clock });
  const hosted = createHostedService({ db, config, clock, deposits, merchants });
  const bots = createBotService({ db, config, platform });
  const reconcile = createReconcileService({ db, log, clock, settings: config.reconcile, platform });
  const accounts = createAccountsService({ db, config, clock, merchants });
  const events = createEventsService({ db, webhooks });
  const priceAdmin = createPriceAdminService({ db, pricing });
  const botStock = createBotStockSync({ db, log, settings: config.botSync, platform, pricing, state: catalogue.pageState });
  // Offer changes the platform reports (accepted, declined, expired, canceled, hold ended,
  // reverted) become deposit / purchase transitions (through the offer layer, src/platform/offers.ts).
  // The service that holds an offer's record.
  const recordsOf = (offer: 'deposit' | 'purchase') => (offer === 'deposit' ? deposits : purchases);
  platform.onOfferChange((change) => recordsOf(change.offer).applyOfferChange(change));
  // A change the gateway refused although items may have moved (steam-poll.ts settle): an audit
  // entry the operator sees in the console's audit log (the metric and the error line are the adapter's).
  // It names the record's merchant, so the entry shows in that merchant's audit view as well.
  platform.onChangeRefused?.(async (r) => {
    const merchantId = await recordsOf(r.offer).merchantOf(r.recordId);
    await accounts.audit({ userId: null, actor: 'platform', ip: null }, 'offer_change_refused', merchantId, {
      offer: r.offer, record_id: r.recordId, trade_offer_id: r.tradeOfferId, change: r.change, refusal: r.refusal, message: r.message, bot_id: r.bot?.id, bot_name: r.bot?.name,
    });
  });
  // A real platform confirms (and keeps) an offer only while its record still wants it.
  platform.onOfferGuard?.((offer, id, tradeOfferId) => recordsOf(offer).wantsOffer(id, tradeOfferId));
  return { ...base, jobRelay, merchants, ledger, webhooks, pricing, platform, deposits, catalogue, purchases, intents, hosted, bots, botStock, reconcile, accounts, events, priceAdmin };
}

export type AppContext = ReturnType<typeof createContext>;
