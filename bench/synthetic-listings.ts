// Synthetic csgo listings in bulk (ids from a counter, 5 000 distinct names), for the catalogue
// benchmark and the 500 000-listing test: both must measure the same catalogue.
import { sql } from 'kysely';
import type { Db } from '../src/db/database.js';

export const SYNTHETIC_NAMES = 5000;
/** Rows per statement: each is one plain INSERT on listings, so the catalogue triggers run as for any writer. */
const BATCH = 50_000;

/**
 * Inserts listings number `from` to `to - 1` (existing ids are left alone). The rows are made by
 * PostgreSQL (generate_series), not sent from here: 10 statements for 500 000 rows instead of 500
 * round trips of 18 000 parameters each — the same rows, a fraction of the set-up time.
 * Listing j: id hex(2^32 + j), name `Synthetic item ${j % 5000}`, base_price 1000 + j % 997, class_id 1000 + j.
 */
export async function seedSyntheticListings(db: Db, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += BATCH) {
    const last = Math.min(i + BATCH, to) - 1;
    await sql`insert into listings (id, game, name, base_price, image_url, exterior, rarity, rarity_color, class_id, instance_id, source)
      select to_hex(4294967296 + j), 'csgo', 'Synthetic item ' || (j % ${SYNTHETIC_NAMES}), 1000 + j % 997, '/static/synthetic.svg',
             'Field-Tested', 'Covert', 'eb4b4b', 1000 + j, 0, 'import'
        from generate_series(${i}::int8, ${last}::int8) as j
      on conflict (id) do nothing`.execute(db);
  }
}
