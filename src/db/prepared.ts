// Named prepared statements for the hot reads: parsing and planning cost PostgreSQL as
// much as a primary-key read itself, so the reads every merchant polls are prepared once per
// connection, then only bound and executed.
import type pg from 'pg';
import { CompiledQuery, type Kysely } from 'kysely';
import { merchantOfText } from './merchant-of-lookup.js';

const PREPARED = /^\/\* prepared:([a-z0-9_]+) \*\//;

/**
 * A statement written as `/* prepared:<name> *\/ select …` (see readPrepared) runs as a named
 * prepared statement: each connection parses and plans it once, then only binds and executes it.
 * Kept for the hot statements (status reads, the webhook claim and settle, a deposit's acceptance,
 * the purchase dispatch), where parsing and planning cost PostgreSQL as much as running them. The
 * name must always go with the same text; other statements are unchanged.
 *
 * Planned once only if PostgreSQL keeps the generic plan: after five custom plans it does so unless
 * the generic one looks dearer. A parameter array read by `= any($1)` or `unnest($1)` can make every
 * custom plan look cheaper (it knows the array's length, the generic plan guesses): the grouped
 * deposit read, the sandbox deposit trades and purchase offers were planned at every call so. Pass such an array
 * through an InitPlan, `any(array(select unnest($1)))`, or the rows as jsonb_to_recordset($1), whose
 * count both guess alike. Test helpers: test/plan-buffers.ts genericBuffers (the generic plan's
 * buffers) and plansOfOneConnection (whether a connection keeps it).
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


// The pool behind each Db (createDb registers it): the hot reads go to it directly, without
// Kysely's query building and connection wrapping (≈ 10 µs of a ≈ 100 µs status read, bench/RESULTS.md).
const pools = new WeakMap<object, pg.Pool>();

/** Lets the hot reads of `db` run straight on `pool` (called by createDb). */
export function registerPool(db: object, pool: pg.Pool): void {
  pools.set(db, pool);
}

/**
 * Runs a named prepared statement (parsed and planned once per connection) and returns its first
 * row. On the pool behind `db` when there is one, else through Kysely (a transaction, a test's db).
 */
export async function readPrepared<R>(db: Kysely<any>, name: string, text: string, values: unknown[]): Promise<R | undefined> {
  // One text per name on both paths: a connection refuses a name it has prepared with another text.
  const marked = `/* prepared:${name} */ ${text}`;
  const pool = pools.get(db);
  if (pool) return (await pool.query({ name, text: marked, values })).rows[0] as R | undefined;
  const r = await db.executeQuery<R>(CompiledQuery.raw(marked, values));
  return r.rows[0];
}

/**
 * Every column of a row type, named: a prepared statement lists its columns rather than `select *`
 * (or `returning *`), which a connection that prepared it before a migration added a column could no
 * longer run ("cached plan must not change result type"). The build fails when one is missing:
 * `everyColumn<Row>()(['id', …])`.
 */
export function everyColumn<R>() {
  return <const C extends readonly (keyof R & string)[]>(
    columns: C & ([Exclude<keyof R, C[number]>] extends [never] ? unknown : { missing: Exclude<keyof R, C[number]> }),
  ): C => columns;
}

const ownRecordTexts = new Map<string, string>();

/**
 * A merchant's record by id and/or merchant_tx_id (the status reads): one prepared statement per
 * lookup form, the merchant in the WHERE (another merchant's record is not found), only `columns`.
 */
export function findOwnRecord<R>(
  db: Kysely<any>,
  from: { table: string; columns: readonly string[]; statement: string },
  merchantId: number,
  by: { id?: number; merchantTxId?: string },
): Promise<R | undefined> {
  const { name, text, values } = ownRecordStatement(from, merchantId, by);
  return readPrepared<R>(db, name, text, values);
}

/** findOwnRecord's prepared statement: its name, text and values (its plan is tested). */
export function ownRecordStatement(from: { table: string; columns: readonly string[]; statement: string }, merchantId: number, by: { id?: number; merchantTxId?: string }) {
  const both = by.id !== undefined && by.merchantTxId !== undefined;
  const form = both ? 'by_id_tx' : by.id !== undefined ? 'by_id' : 'by_tx';
  const name = `${from.statement}_${form}`;
  let text = ownRecordTexts.get(name);
  if (text === undefined) {
    const where = both ? 'and id = $2 and merchant_tx_id = $3' : by.id !== undefined ? 'and id = $2' : 'and merchant_tx_id = $2';
    text = `select ${from.columns.join(', ')} from ${from.table} where ${merchantOfText(by)} ${where}`;
    ownRecordTexts.set(name, text);
  }
  const values = both ? [merchantId, by.id, by.merchantTxId] : [merchantId, by.id ?? by.merchantTxId];
  return { name, text, values };
}
