// Tables of the price engine: price_bases and price_overrides.
import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../columns.js';

export interface BasisReadingRow {
  source: string;
  role: 'market' | 'guard';
  price: number;
  as_of: string;
  liquidity?: number;
  status: 'used' | 'outlier' | 'stale' | 'illiquid' | 'guard';
}

export interface PriceBasesTable {
  id: Generated<number>;
  game: string;
  market_hash_name: string;
  reference: number | null;
  deposit_price: number | null;
  sale_price: number | null;
  flags: string[];
  readings: ColumnType<BasisReadingRow[], string, string>;
  computed_at: Timestamp;
}

export interface PriceOverridesTable {
  game: string;
  market_hash_name: string;
  action: 'pin' | 'block';
  price: number | null;
  reason: Generated<string>;
  set_by: string;
  set_at: Timestamp;
}

export interface PricingTables {
  price_bases: PriceBasesTable;
  price_overrides: PriceOverridesTable;
}
