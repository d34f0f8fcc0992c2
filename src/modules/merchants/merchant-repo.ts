import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { MerchantsTable } from '../../db/types.js';
import type { Updateable } from 'kysely';

import type { MerchantRow } from '../../db/tables/merchants.js';
export type { MerchantRow };

export async function insertMerchant(
  trx: Trx,
  values: {
    name: string;
    api_key_hash: string;
    api_key_prefix: string;
    webhook_secret: string;
    webhook_url: string | null;
    ip_whitelist: string[];
    deposit_preview_enabled: boolean;
    max_items: number;
    enabled: boolean;
    deposit_multiplier?: number;
    purchase_markup?: number;
    frame_ancestors?: string[];
    rate_limit_per_minute?: number | null;
  },
): Promise<MerchantRow> {
  const row = await trx.insertInto('merchants').values(values).returningAll().executeTakeFirstOrThrow();
  await trx.insertInto('balances').values({ merchant_id: row.id }).execute();
  return row;
}

export function findById(db: Db | Trx, id: number): Promise<MerchantRow | undefined> {
  return db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Read through the per-instance key cache (key-cache.ts), invalidated by NOTIFY on every change. */
export function findByKeyHash(db: Db, hash: string): Promise<MerchantRow | undefined> {
  return db.selectFrom('merchants').selectAll().where('api_key_hash', '=', hash).executeTakeFirst();
}

export function updateMerchant(db: Db | Trx, id: number, patch: Updateable<MerchantsTable>): Promise<MerchantRow | undefined> {
  return db
    .updateTable('merchants')
    .set({ ...patch, updated_at: sql`now()` as never })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export function listMerchants(db: Db, limit: number, offset: number): Promise<MerchantRow[]> {
  return db.selectFrom('merchants').selectAll().orderBy('id').limit(limit).offset(offset).execute();
}
