// What the dashboard, the console and the account pages use of the composition root: the
// services they call for writes and the database for their own reads. Nothing else.
import type { Logger } from 'pino';
import type { TradingPlatform } from '../../platform/port.js';
import type { MerchantService } from '../merchants/merchant-service.js';
import type { LedgerService } from '../ledger/ledger-service.js';
import type { WebhookService } from '../webhooks/webhook-service.js';
import type { BotService } from '../bots/bot-service.js';
import type { ReconcileService } from '../reconcile/reconcile-service.js';
import type { AccountDeps } from '../accounts/accounts-service.js';

export interface WebDeps extends AccountDeps {
  log: Logger;
  merchants: MerchantService;
  ledger: LedgerService;
  webhooks: WebhookService;
  platform: TradingPlatform;
  bots: BotService;
  reconcile: ReconcileService;
}
