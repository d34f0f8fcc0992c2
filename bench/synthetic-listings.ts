// Synthetic csgo listings in bulk (ids from a counter, 5 000 distinct names), for the catalogue
// benchmark and the 500 000-listing test: both must measure the same catalogue.
import type { Db } from '../src/db/database.js';
import { insertListingsIgnore, type ListingInput } from '../src/modules/catalogue/catalogue-repo.js';

export const SYNTHETIC_NAMES = 5000;

/** Inserts listings number `from` to `to - 1` in batches of 1 000 (existing ids are left alone). */
export async function seedSyntheticListings(db: Db, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 1000) {
    const rows: ListingInput[] = [];
    for (let j = i; j < Math.min(i + 1000, to); j++) {
      rows.push({ id: (0x100000000 + j).toString(16), game: 'csgo', name: `Synthetic item ${j % SYNTHETIC_NAMES}`, base_price: 1000 + (j % 997), image_url: '/static/synthetic.svg', exterior: 'Field-Tested', rarity: 'Covert', rarity_color: 'eb4b4b', class_id: 1000 + j, instance_id: 0, source: 'import' });
    }
    await insertListingsIgnore(db, rows);
  }
}
