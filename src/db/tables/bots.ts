// Kysely table types of the operator-managed bots and the steam adapter (migration 010_steam_bots.sql).
import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../columns.js';

/** Columns 010 adds to `bots` (the sandbox's seeded bots leave them at their defaults). */
export interface SteamBotColumns {
  account_name: string | null;
  secrets: Buffer | null;
  refresh_token: Buffer | null;
  games: Generated<string[]>;
  inventory_capacity: Generated<number>;
  trade_state: Generated<'ok' | 'cannot_trade'>;
  trade_state_reason: string | null;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  poll_data: Generated<Record<string, unknown>>;
  trade_protection_acknowledged_at: Date | null;
  history_cursor: Generated<string>;
  last_checked_at: Date | null;
  removed_at: Date | null;
  updated_at: Timestamp;
  /** 027: the last call the platform answered signed in (a live session), and why the session is gone when it is. */
  last_authenticated_at: Date | null;
  session_error: string | null;
  /** 028: when the trade history was last read in full. */
  history_read_at: Date | null;
  /** 081: a signed-in call went through with the current session; when a sign-in may be tried next; the last working web session (sealed). */
  session_live: Generated<boolean>;
  sign_in_retry_at: Date | null;
  web_session: Buffer | null;
  /** 083: the bot's outbound proxy URL, sealed (null: direct). */
  proxy: Buffer | null;
}

export interface SteamOffersTable {
  offer_kind: 'deposit' | 'purchase';
  record_id: number;
  bot_id: number;
  message: string;
  trade_offer_id: string | null;
  trade_id: string | null;
  state: number | null;
  reported_state: number | null;
  escrow_ends_at: Date | null;
  reverted_at: Date | null;
  reversal_reported: Generated<boolean>;
  attempt_started_at: Timestamp;
  /** 026: the send's answer was ambiguous (the offer may exist): never sent again, resolved by lookup. */
  uncertain_since: Date | null;
  /** 028: when the platform first showed the offer accepted (start of the trade's protection window). */
  accepted_at: Date | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SteamReceivedAssetsTable {
  deposit_id: number;
  asset_id: string;
  bot_id: number;
  trade_offer_id: string;
  new_asset_id: string;
  new_context_id: string;
  /** 085: the item's own trade protection release time, as Steam shows it (null: not told). */
  protection_ends_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
}

export interface SteamInstancesTable {
  id: string;
  seen_at: Timestamp;
}

export interface BotTables {
  steam_instances: SteamInstancesTable;
  steam_offers: SteamOffersTable;
  steam_received_assets: SteamReceivedAssetsTable;
}
