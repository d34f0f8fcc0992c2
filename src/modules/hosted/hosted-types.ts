// The column this feature adds to `deposits` (migration 005_hosted.sql). The deposits table type
// belongs to the deposits feature; queries that touch hosted_token use `hostedDb(db)`, which
// widens the table type locally instead of editing the shared DB interface.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/types.js';

export interface HostedDepositColumns {
  hosted_token: string | null;
}

export type HostedDB = DB & { deposits: HostedDepositColumns };

export function hostedDb(db: Kysely<DB> | Transaction<DB>): Kysely<HostedDB> {
  return db.withTables<{ deposits: HostedDepositColumns }>() as unknown as Kysely<HostedDB>;
}
