// SQL of the price engine: price bases (append-only, one per change of an item's basis), the
// operator's overrides, and the bases deposits and quotes were priced at.
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { BasisReadingRow } from '../../db/tables/pricing.js';

type Q = Db | Trx;

export interface NewBasis {
  game: string;
  name: string;
  reference: number | null;
  deposit: number | null;
  sale: number | null;
  flags: string[];
  readings: BasisReadingRow[];
}

/** Ids for n new bases from the table's own sequence (one statement), ascending. */
export async function reserveBaseIds(db: Q, n: number): Promise<number[]> {
  const r = await sql<{ ids: string }>`
    select array_to_string(array(select nextval(pg_get_serial_sequence('price_bases', 'id')) from generate_series(1, ${n}::int) order by 1), ',') as ids`.execute(db);
  return n === 0 ? [] : r.rows[0]!.ids.split(',').map(Number);
}

/**
 * Rows with their ids as ONE JSON text of row arrays (one native JSON.stringify, instead of seven
 * array parameters whose elements the driver escapes one by one in JavaScript).
 */
export function basesText(rows: readonly NewBasis[], ids: readonly number[]): string {
  return JSON.stringify(rows.map((b, i) => [ids[i], b.game, b.name, b.reference, b.deposit, b.sale, b.flags, b.readings]));
}

/** Inserts the rows of one basesText (ids given); a row already written is left as it is. */
export async function insertBasesText(db: Q, text: string, computedAt: Date): Promise<void> {
  await sql`
    insert into price_bases (id, game, market_hash_name, reference, deposit_price, sale_price, flags, readings, computed_at)
    select (e->>0)::bigint, e->>1, e->>2, (e->>3)::bigint, (e->>4)::bigint, (e->>5)::bigint,
           array(select json_array_elements_text(e->6)), (e->7)::jsonb, ${computedAt}
      from json_array_elements(${text}::json) as t(e)
    on conflict (id) do nothing`.execute(db);
}

export function findBasis(db: Q, id: number) {
  return db.selectFrom('price_bases').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The newest basis of each name at or below `version` (a get-prices quote's), by name. */
export async function basesAt(db: Q, game: string, names: readonly string[], version: number): Promise<Map<string, number>> {
  if (names.length === 0) return new Map();
  const r = await sql<{ market_hash_name: string; id: number }>`
    select n as market_hash_name, b.id from unnest(${[...new Set(names)]}::text[]) n
      cross join lateral (select id from price_bases where game = ${game} and market_hash_name = n and id <= ${version} order by id desc limit 1) b`.execute(db);
  return new Map(r.rows.map((x) => [x.market_hash_name, Number(x.id)]));
}

export function listOverrides(db: Q) {
  return db.selectFrom('price_overrides').selectAll().orderBy('game').orderBy('market_hash_name').execute();
}

export async function upsertOverride(db: Q, o: { game: string; name: string; action: 'pin' | 'block'; price: number | null; reason: string; setBy: string }) {
  return db
    .insertInto('price_overrides')
    .values({ game: o.game, market_hash_name: o.name, action: o.action, price: o.price, reason: o.reason, set_by: o.setBy })
    .onConflict((oc) => oc.columns(['game', 'market_hash_name']).doUpdateSet({ action: o.action, price: o.price, reason: o.reason, set_by: o.setBy, set_at: sql`now()` as never }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteOverride(db: Q, game: string, name: string): Promise<boolean> {
  const r = await db.deleteFrom('price_overrides').where('game', '=', game).where('market_hash_name', '=', name).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

