// Kysely table types of the deposits feature (migration 002_deposits.sql); DB in ../types.ts is
// the union of every feature's tables.
import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from '../columns.js';
import type { DepositStatus } from '../../domain/deposit-state.js';

export interface BotsTable {
  id: Generated<number>;
  name: string;
  platform_id: string;
  enabled: Generated<boolean>;
  created_at: Timestamp;
}

export type DepositFlow = 'inventory' | 'hash_name' | 'intent';

export interface DepositsTable {
  id: Generated<number>;
  merchant_id: number;
  merchant_tx_id: string | null;
  flow: DepositFlow;
  status: Generated<DepositStatus>;
  game: string | null;
  partner: number | null;
  token: string | null;
  platform_id: string | null;
  amount: Generated<number>;
  bot_id: number | null;
  bot_name: string | null;
  bot_platform_id: string | null;
  trade_offer_id: string | null;
  trade_offer_expiry_at: NullableTimestamp;
  hold_end_date: NullableTimestamp;
  fail_reason: string | null;
  /** 047: the real cause of a failure after retries (operator information, never on the wire). */
  fail_cause: Generated<string | null>;
  result_url: string | null;
  success_url: string | null;
  fail_url: string | null;
  custom_currency: string | null;
  custom_currency_multiplier: number | null;
  custom_currency_rate: number | null;
  quote_expires_at: NullableTimestamp;
  from_preview: Generated<boolean>;
  /** Redirect flow (005_hosted.sql): the hosted page's only credential; intents only. */
  hosted_token: string | null;
  /** Redirect flow (011_real_items.sql): the hosted page refuses deposits from then on; intents only. */
  hosted_expires_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DepositItemsTable {
  id: Generated<number>;
  deposit_id: number;
  asset_id: string | null;
  market_hash_name: string;
  price: number;
  original_price: number | null;
  min_price: number | null;
  image_url: string | null;
  exterior: string | null;
  rarity: string | null;
  rarity_color: string | null;
  phase: string | null;
  /** The user's trade key: with asset_id, what `reserved` locks. */
  game: string | null;
  partner: number | null;
  /** True while the deposit is pending, active or hold (unique per game, partner, asset_id). */
  reserved: Generated<boolean>;
  /** price_bases row the item was credited at (null for items credited before price bases existed) */
  price_basis_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** 084: the float (wear) and paint seed the platform told when the item was deposited; null where it did not. */
  float: ColumnType<number | null, number | null | undefined, number | null>;
  paint_seed: ColumnType<number | null, number | null | undefined, number | null>;
}

/** A get-prices quote: its lines packed (019, quote-pack.ts; the older forms went in 071). */
export interface DepositQuotesTable {
  deposit_id: number;
  packed: Buffer;
  /** highest price_bases id published when quoted (null for quotes made before price bases existed) */
  price_version: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface InventorySnapshotsTable {
  id: Generated<number>;
  merchant_id: number;
  game: string;
  partner: number;
  items: ColumnType<SnapshotItem[], string, string>;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** One priced item of an inventory snapshot (mills). */
export interface SnapshotItem {
  asset_id: string;
  name: string;
  price: number;
  original_price: number;
  image_url?: string;
  exterior?: string;
  rarity?: string;
  rarity_color?: string;
  phase?: string;
  /** price_bases row of the price: which sources priced it, and when */
  basis_id?: number;
  /** The float (wear) and paint seed the platform tells (Steam: asset properties, else the inspect link). */
  float?: number;
  paint_seed?: number;
}

export interface DepositTables {
  bots: BotsTable;
  deposits: DepositsTable;
  deposit_items: DepositItemsTable;
  deposit_quotes: DepositQuotesTable;
  inventory_snapshots: InventorySnapshotsTable;
}
