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

const CHUNK = 1000;

/**
 * Inserts the bases (one statement per 1 000, each built just before it is sent, so that requests
 * run between them), answering their ids in order. A chunk goes as ONE JSON text of row arrays:
 * one native JSON.stringify on the event loop, instead of seven array parameters whose elements the
 * driver escapes one by one in JavaScript (the readings' JSON twice over).
 */
export async function insertBases<T>(db: Q, items: readonly T[], rowOf: (item: T) => NewBasis, computedAt: Date): Promise<number[]> {
  const ids: number[] = [];
  for (let at = 0; at < items.length; at += CHUNK) {
    const rows: unknown[] = [];
    for (let i = at; i < Math.min(items.length, at + CHUNK); i++) {
      const b = rowOf(items[i]!);
      rows.push([b.game, b.name, b.reference, b.deposit, b.sale, b.flags, b.readings]);
    }
    const r = await sql<{ id: number }>`
      insert into price_bases (game, market_hash_name, reference, deposit_price, sale_price, flags, readings, computed_at)
      select e->>0, e->>1, (e->>2)::bigint, (e->>3)::bigint, (e->>4)::bigint,
             array(select json_array_elements_text(e->5)), (e->6)::jsonb, ${computedAt}
        from json_array_elements(${JSON.stringify(rows)}::json) with ordinality as t(e, o)
       order by o
      returning id`.execute(db);
    ids.push(...r.rows.map((x) => Number(x.id)));
  }
  return ids;
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

