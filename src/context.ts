// The dependencies every route and job handler reaches for, built once in the composition root.
// Features add their service here; routes and tasks receive the whole context.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { Clock } from './domain/clock.js';
import { createMerchantService } from './modules/merchants/merchant-service.js';
import { createLedgerService } from './modules/ledger/ledger-service.js';
import { createWebhookService } from './modules/webhooks/webhook-service.js';
import { createPricingService } from './modules/pricing/pricing-service.js';
import { createDepositService } from './modules/deposits/deposit-service.js';
import { createPlatform } from './platform/index.js';
import type { TradingPlatform } from './platform/port.js';
import type { SessionProvider } from './platform/steam/session.js';
import { createCatalogueService } from './modules/catalogue/catalogue-service.js';
import { createPurchaseService } from './modules/purchases/purchase-service.js';
import { createBotService } from './modules/bots/bot-service.js';

export interface BaseContext {
  config: Config;
  db: Db;
  pool: pg.Pool;
  clock: Clock;
  log: Logger;
  /** PLATFORM=steam: the bots' sign-in (default steam-session); a stand-in platform's tests pass their own. */
  steamSessions?: SessionProvider;
}

export function createContext(base: BaseContext) {
  const merchants = createMerchantService(base.db, base.config);
  const ledger = createLedgerService(base.db);
  const webhooks = createWebhookService(base);
  const pricing = createPricingService(base);
  const platform: TradingPlatform = createPlatform({ ...base, itemsFor: pricing.sandboxItems });
  const deposits = createDepositService({ ...base, platform, pricing });
  const catalogue = createCatalogueService(base);
  const purchases = createPurchaseService({ ...base, platform });
  const bots = createBotService({ ...base, platform });
  // Offer changes the platform reports (accepted, declined, expired, canceled, hold ended,
  // reverted) become deposit / purchase transitions.
  platform.onOfferChange((change) => (change.offer === 'deposit' ? deposits.applyOfferChange(change) : purchases.applyOfferChange(change)));
  return {
    ...base,
    merchants,
    ledger,
    webhooks,
    pricing,
    platform,
    deposits,
    catalogue,
    purchases,
    bots,
  };
}

export type AppContext = ReturnType<typeof createContext>;
