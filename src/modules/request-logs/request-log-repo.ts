// SQL of the request logs (request_logs): the recorder's writes and the prune. The dashboard's
// request-log page reads them through its own reads (web/dashboard/dashboard-repo.ts listRequests).
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

export interface RequestLogEntry {
  merchantId: number;
  at: Date;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  requestId: string;
  keyPrefix: string;
  clientIp: string;
  merchantTxId: string | null;
  errorBody: string | null;
  /** How many identical answers this entry stands for (1 but for 304s: recorder.ts). */
  repeats: number;
}

// PostgreSQL text cannot hold NUL.
const text = (s: string | null) => (s === null ? null : s.replace(/\u0000/g, ''));

/** One statement for the whole batch. */
export async function insertBatch(db: Db, rows: RequestLogEntry[]): Promise<void> {
  if (rows.length === 0) return;
  const col = <K extends keyof RequestLogEntry>(k: K) => rows.map((r) => r[k]);
  await sql`
    insert into request_logs (merchant_id, at, method, path, status, duration_ms, request_id, key_prefix, client_ip, merchant_tx_id, error_body, repeats)
    select * from unnest(${col('merchantId')}::bigint[], ${col('at')}::timestamptz[], ${col('method')}::text[], ${rows.map((r) => text(r.path))}::text[],
                         ${col('status')}::int[], ${col('durationMs')}::int[], ${rows.map((r) => text(r.requestId))}::text[], ${col('keyPrefix')}::text[],
                         ${col('clientIp')}::text[], ${rows.map((r) => text(r.merchantTxId))}::text[], ${rows.map((r) => text(r.errorBody))}::text[],
                         ${col('repeats')}::int[])`.execute(db);
}

/** Deletes up to `limit` rows older than `days` (found through request_logs_at_brin); returns how many. */
export async function pruneOlderThan(db: Db, days: number, limit: number): Promise<number> {
  const r = await sql`delete from request_logs where id in (
      select id from request_logs where at < now() - make_interval(days => ${days}::int) limit ${limit})`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
