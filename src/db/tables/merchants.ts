// The merchant row as read (the table is MerchantsTable in ../types.ts): features that are handed a
// merchant (deposits, purchases' pricing, the hosted page, the catalogue) take its type from here, the
// db layer, never from the merchants feature's repo.
import type { Selectable } from 'kysely';
import type { MerchantsTable } from '../types.js';

export type MerchantRow = Selectable<MerchantsTable>;
