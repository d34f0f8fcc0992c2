// SQL of the request logs (request_logs).
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

export interface RequestLogRow {
  id: number;
  at: Date;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  request_id: string;
  key_prefix: string;
  client_ip: string;
  merchant_tx_id: string | null;
  error_body: string | null;
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

/** A merchant's requests newest first (request_logs_merchant_idx), from the cursor on, optionally those of a request id or merchant_tx_id. */
export async function listRequests(db: Db, merchantId: number, opts: { limit: number; beforeId?: number; requestId?: string; merchantTxId?: string }): Promise<RequestLogRow[]> {
  const r = await sql<RequestLogRow>`
    select id, at, method, path, status, duration_ms, request_id, key_prefix, client_ip, merchant_tx_id, error_body, repeats
      from request_logs
     where merchant_id = ${merchantId}
       ${opts.beforeId !== undefined ? sql`and id < ${opts.beforeId}` : sql``}
       ${opts.requestId ? sql`and request_id = ${opts.requestId}` : sql``}
       ${opts.merchantTxId ? sql`and merchant_tx_id = ${opts.merchantTxId}` : sql``}
     order by id desc
     limit ${opts.limit}`.execute(db);
  return r.rows.map((row) => ({ ...row, id: Number(row.id) }));
}

/** Deletes up to `limit` rows older than `days` (found through request_logs_at_brin); returns how many. */
export async function pruneOlderThan(db: Db, days: number, limit: number): Promise<number> {
  const r = await sql`delete from request_logs where id in (
      select id from request_logs where at < now() - make_interval(days => ${days}::int) limit ${limit})`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
