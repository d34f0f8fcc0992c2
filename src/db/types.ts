// Table types for Kysely. Each feature's tables are declared in ./tables/<feature>.ts (the
// foundation's here) and DB is their union. A leaf: it imports nothing above src/db and src/domain.
import type { Generated } from 'kysely';
import type { Timestamp } from './columns.js';

export interface MerchantsTable {
  id: Generated<number>;
  name: string;
  enabled: Generated<boolean>;
  api_key_hash: string;
  api_key_prefix: string;
  webhook_secret: string;
  webhook_url: string | null;
  ip_whitelist: Generated<string[]>;
  deposit_preview_enabled: Generated<boolean>;
  max_items: Generated<number>;
  deposit_multiplier: Generated<number>;
  purchase_markup: Generated<number>;
  frame_ancestors: Generated<string[]>;
  /** Requests per minute on the merchant API; null: RATE_LIMIT_MERCHANT_PER_MINUTE. */
  rate_limit_per_minute: Generated<number | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface BalancesTable {
  merchant_id: number;
  available: Generated<number>;
  hold: Generated<number>;
  updated_at: Timestamp;
}

export interface LedgerEntriesTable {
  id: Generated<number>;
  merchant_id: number;
  key: string;
  kind: string;
  available_delta: number;
  hold_delta: number;
  available_after: number;
  hold_after: number;
  ref_type: string | null;
  ref_id: number | null;
  created_at: Timestamp;
}

export interface WithdrawalsTable {
  id: Generated<number>;
  merchant_id: number;
  amount: number;
  status: Generated<'pending' | 'completed' | 'failed' | 'canceled'>;
  reference: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TopUpsTable {
  id: Generated<number>;
  merchant_id: number;
  amount: number;
  reference: string;
  created_at: Timestamp;
}

export interface FoundationTables {
  merchants: MerchantsTable;
  balances: BalancesTable;
  ledger_entries: LedgerEntriesTable;
  withdrawals: WithdrawalsTable;
  top_ups: TopUpsTable;
}

import type { DepositTables } from './tables/deposits.js';
import type { PurchaseTables } from './tables/purchases.js';
import type { WebhookTables } from './tables/webhooks.js';
import type { BotTables, SteamBotColumns } from './tables/bots.js';
import type { PricingTables } from './tables/pricing.js';
import type { ReconcileTables } from './tables/reconcile.js';

export interface DB extends FoundationTables, DepositTables, PurchaseTables, WebhookTables, BotTables, PricingTables, ReconcileTables {
  /** The deposits feature's bots plus the operator-managed columns of the steam bots (SteamBotColumns). */
  bots: DepositTables['bots'] & SteamBotColumns;
}
