// Several writes of one transaction as one statement: each part (an INSERT/UPDATE as a
// data-modifying CTE) runs exactly once whatever the final SELECT reads, so a status change's
// effects cost one round trip instead of one each.
import { sql, type RawBuilder } from 'kysely';
import type { Trx } from './database.js';

/** `w0 as (…), w1 as (…), ` for the parts given (nothing for none): goes right after a WITH. */
export function alongsideCtes(parts: RawBuilder<unknown>[]): RawBuilder<unknown> {
  return sql.join(parts.map((p, i) => sql`${sql.raw(`w${i}`)} as (${p}), `), sql.raw(''));
}

/** The parts as one statement. */
export async function runParts(trx: Trx, parts: RawBuilder<unknown>[]): Promise<void> {
  if (parts.length === 0) return;
  await sql`with ${alongsideCtes(parts)} done as (select 1) select 1 from done`.execute(trx);
}
