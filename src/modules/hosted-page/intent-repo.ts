// SQL of the redirect flow: the intent row (a `deposits` row with flow 'intent') and its lookup by
// hosted token. Only this feature reads or writes deposits.hosted_token.
import type { Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { DepositsTable } from '../../db/tables/deposits.js';

type DbOrTrx = Db | Trx;

/** The intent's fields: a subset of the deposit row, named as the deposits table names them. */
type IntentFields = Pick<
  Selectable<DepositsTable>,
  | 'merchant_id' | 'game' | 'partner' | 'token' | 'result_url' | 'success_url' | 'fail_url'
  | 'custom_currency' | 'custom_currency_multiplier' | 'custom_currency_rate'
> & { merchant_tx_id: string };

export interface NewIntent extends IntentFields {
  platform_id: string | null;
  hosted_token: string;
  /** INTENT_TTL_SECONDS after creation: the hosted page takes no deposit from then on. */
  hosted_expires_at: Date;
}

/** Inserts the intent; a duplicate merchant_tx_id fails on deposits_merchant_tx_id_key (23505). */
export async function insertIntent(db: DbOrTrx, intent: NewIntent): Promise<{ id: number }> {
  return db
    .insertInto('deposits')
    .values({ ...intent, flow: 'intent', status: 'new' })
    .returning('id')
    .executeTakeFirstOrThrow();
}

export interface IntentRow extends IntentFields {
  id: number;
  status: string;
  hosted_expires_at: Date | null;
}

/** The intent behind a hosted token, or undefined. Only intents carry a token. */
export async function findIntentByToken(db: DbOrTrx, hostedToken: string): Promise<IntentRow | undefined> {
  const row = await db
    .selectFrom('deposits')
    .select([
      'id',
      'merchant_id',
      'merchant_tx_id',
      'status',
      'game',
      'partner',
      'token',
      'result_url',
      'success_url',
      'fail_url',
      'custom_currency',
      'custom_currency_multiplier',
      'custom_currency_rate',
      'hosted_expires_at',
    ])
    .where('hosted_token', '=', hostedToken)
    .where('flow', '=', 'intent')
    .executeTakeFirst();
  return row as IntentRow | undefined;
}
