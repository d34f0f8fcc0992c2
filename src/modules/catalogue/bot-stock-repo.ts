// The bots' stock in the catalogue (bot-stock.ts): one bot's listings, keyed by source_ref
// bot:<bot>:<asset>, written through the listings table like every other source (its triggers keep
// page versions and the change feed).
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { Game } from '../../domain/games.js';
import { toValues, type ListingInput } from './catalogue-repo.js';

/** Of these asset ids, those backing a listing of another source (an import, a deposit) that is not delisted. */
export async function assetsListedElsewhere(db: Db | Trx, botId: number, assetIds: readonly string[]): Promise<Set<string>> {
  if (assetIds.length === 0) return new Set();
  const r = await sql<{ asset_id: string }>`
    select asset_id from listings
     where asset_id = any(${[...assetIds]}::text[]) and status <> 'delisted'
       and source_ref is distinct from ('bot:' || ${botId}::bigint || ':' || asset_id)`.execute(db);
  return new Set(r.rows.map((x) => x.asset_id));
}

/**
 * One bot's listable stock for a game: new items are listed, listed ones re-priced, delisted ones
 * listed again; reserved and sold listings are left alone (a purchase has them). Answers how many
 * rows changed.
 */
export async function upsertBotListings(db: Db | Trx, rows: readonly ListingInput[]): Promise<number> {
  if (rows.length === 0) return 0;
  const res = await db
    .insertInto('listings')
    .values(toValues(rows))
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        name: eb.ref('excluded.name'),
        base_price: eb.ref('excluded.base_price'),
        image_url: eb.ref('excluded.image_url'),
        exterior: eb.ref('excluded.exterior'),
        rarity: eb.ref('excluded.rarity'),
        rarity_color: eb.ref('excluded.rarity_color'),
        float: eb.ref('excluded.float'),
        paint_seed: eb.ref('excluded.paint_seed'),
        phase: eb.ref('excluded.phase'),
        status: 'live',
        updated_at: sql`now()`,
      }))
        .where('listings.status', 'in', ['live', 'delisted'])
        .where(sql<boolean>`(listings.status, listings.name, listings.base_price, listings.image_url, listings.exterior, listings.rarity,
                             listings.rarity_color, listings.float, listings.paint_seed, listings.phase)
                            is distinct from
                            ('live', excluded.name, excluded.base_price, excluded.image_url, excluded.exterior, excluded.rarity,
                             excluded.rarity_color, excluded.float, excluded.paint_seed, excluded.phase)`),
    )
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0);
}

/** Delists the bot's live listings of a game whose asset is not among `keep` (it left the bot, or may not be sold now). */
export async function delistBotListings(db: Db | Trx, botId: number, game: Game, keep: readonly string[]): Promise<number> {
  const r = await sql`
    update listings set status = 'delisted', updated_at = now()
     where source = 'bot' and status = 'live' and game = ${game}
       and source_ref like ${`bot:${botId}:%`} and not (asset_id = any(${[...keep]}::text[]))`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
