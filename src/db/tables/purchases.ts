// Kysely table types of the purchases and catalogue features (migration 003_purchases.sql);
// DB in ../types.ts is the union of every feature's tables.
import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from '../columns.js';
import type { Game } from '../../domain/games.js';
import type { PurchaseStatus } from '../../domain/purchase-state.js';

export type ListingStatus = 'live' | 'reserved' | 'sold' | 'delisted';
export type ListingSource = 'seed' | 'deposit' | 'import' | 'bot';

export interface ListingsTable {
  id: string;
  game: Game;
  name: string;
  /** mills, before the buying merchant's purchase_markup */
  base_price: number;
  image_url: Generated<string>;
  exterior: string | null;
  rarity: string | null;
  rarity_color: string | null;
  class_id: number | null;
  instance_id: number | null;
  asset_id: string | null;
  float: number | null;
  paint_seed: number | null;
  inspect_url: string | null;
  phase: string | null;
  source: ListingSource;
  source_ref: string | null;
  status: Generated<ListingStatus>;
  reserved_by: number | null;
  /** set when the item left the bot (a deposit reversed after completion): never back on sale */
  withdrawn_at: NullableTimestamp;
  /** generated: (first byte of md5(id)) % 16 + 1 */
  page: ColumnType<number, never, never>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CataloguePagesTable {
  game: Game;
  page: number;
  version: number;
  live_count: number;
  updated_at: Timestamp;
}

export interface CatalogueEventsTable {
  id: Generated<number>;
  at: Timestamp | null; // null until the stamper gives it its place in the feed
  game: Game;
  page: number;
  listing_id: string;
  type: 'upsert' | 'remove';
}

export interface CatalogueClockTable {
  id: number;
  last_event_at: Timestamp;
  pruned_through: Timestamp;
}

export interface CatalogueStateTable {
  id: number;
  rebuilding_until: Date | null;
  rebuild_reason: string | null;
}

export interface PurchasesTable {
  id: Generated<number>;
  merchant_id: number;
  merchant_tx_id: string | null;
  status: Generated<PurchaseStatus>;
  fail_reason: string | null;
  /** 047: the real cause of a failure after retries (operator information, never on the wire). */
  fail_cause: Generated<string | null>;
  game: Game;
  partner: number;
  token: string;
  platform_id: string;
  platform_name: string | null;
  platform_avatar_url: string | null;
  amount: Generated<number>;
  listing_id: string | null;
  item_name: string | null;
  item_price: number | null;
  item_image_url: string | null;
  item_asset_id: string | null;
  bot_id: number | null;
  bot_name: string | null;
  trade_offer_id: string | null;
  offer_expires_at: Date | null;
  /** The offer-expiry sweep's next look at an active purchase it took up (purchases_offer_expiry_idx). */
  expiry_next_at: NullableTimestamp;
  hold_end_date: Date | null;
  dispatch_attempts: Generated<number>;
  dispatch_started_at: Date | null;
  /** When the dispatcher may claim the purchase (while pending): its lease's end, or the retry time (purchases_dispatch_due_idx). */
  dispatch_next_at: Generated<Date>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PurchaseTables {
  listings: ListingsTable;
  catalogue_pages: CataloguePagesTable;
  catalogue_events: CatalogueEventsTable;
  catalogue_clock: CatalogueClockTable;
  catalogue_state: CatalogueStateTable;
  purchases: PurchasesTable;
}
