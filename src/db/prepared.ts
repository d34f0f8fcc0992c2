// Named prepared statements for the hot reads (issue 12): parsing and planning cost PostgreSQL as
// much as a primary-key read itself, so the reads every merchant polls are prepared once per
// connection, then only bound and executed.
import type pg from 'pg';
import { sql, type Kysely } from 'kysely';

const PREPARED = /^\/\* prepared:([a-z0-9_]+) \*\//;

/**
 * A statement written as sql`/* prepared:<name> *\/ select …` (see `prepared`) runs as a named
 * prepared statement: each connection parses and plans it once, then only binds and executes it.
 * Kept for the hot reads (balance, status reads), where parsing and planning cost PostgreSQL as much
 * as the read itself. The name must always go with the same text; other statements are unchanged.
 */
export function runPreparedByName(client: pg.PoolClient): void {
  const query = client.query;
  client.query = function (this: pg.PoolClient, config: unknown, values?: unknown, callback?: unknown) {
    if (typeof config === 'string' && config.startsWith('/* prepared:')) {
      const name = PREPARED.exec(config)?.[1];
      if (name) return (query as Function).call(this, { name, text: config, values }, callback);
    }
    return (query as Function).call(this, config, values, callback);
  } as typeof client.query;
}

/** The marker of a named prepared statement (see runPreparedByName): `${prepared('x')} select …`. */
export const prepared = (name: string) => sql.raw(`/* prepared:${name} */ `);

/**
 * A merchant's record by id and/or merchant_tx_id (the status reads): one prepared statement per
 * lookup form, the merchant in the WHERE (another merchant's record is not found), only `columns`.
 */
export async function findOwnRecord<R>(
  db: Kysely<any>,
  from: { table: string; columns: readonly string[]; statement: string },
  merchantId: number,
  by: { id?: number; merchantTxId?: string },
): Promise<R | undefined> {
  const both = by.id !== undefined && by.merchantTxId !== undefined;
  const form = both ? 'by_id_tx' : by.id !== undefined ? 'by_id' : 'by_tx';
  const head = sql`${prepared(`${from.statement}_${form}`)}select ${sql.raw(from.columns.join(', '))} from ${sql.table(from.table)} where merchant_id = ${merchantId}`;
  const tail = both
    ? sql`and id = ${by.id} and merchant_tx_id = ${by.merchantTxId}`
    : by.id !== undefined
      ? sql`and id = ${by.id}`
      : sql`and merchant_tx_id = ${by.merchantTxId}`;
  const r = await sql<R>`${head} ${tail}`.execute(db);
  return r.rows[0];
}
