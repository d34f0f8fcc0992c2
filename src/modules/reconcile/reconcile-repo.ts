// SQL of reconciliation: the records a run compares (deposits and purchases, listings for sale)
// and the runs with their discrepancies.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Discrepancy, ListingFact, RecordFact } from './reconcile-rules.js';

/**
 * The records the platform's trades name, plus the records created since `since` that claim a
 * trade (a credited deposit, a delivered purchase).
 */
export async function recordsFor(db: Db, since: Date, named: { kind: 'deposit' | 'purchase'; id: number }[]): Promise<RecordFact[]> {
  const dep = named.filter((n) => n.kind === 'deposit').map((n) => n.id);
  const pur = named.filter((n) => n.kind === 'purchase').map((n) => n.id);
  // late_revert: a reversal seen after completion already recorded in the ledger (<kind>:<id>:late_revert).
  const r = await sql<{ kind: 'deposit' | 'purchase'; id: string; merchant_id: string; status: string; bot_id: string | null; created_at: Date; late_revert: boolean }>`
    select 'deposit' as kind, id::text, merchant_id::text, status, bot_id::text, created_at,
           exists (select 1 from ledger_entries e where e.key = 'deposit:' || d.id || ':late_revert') as late_revert from deposits d
     where id = any(${dep}::bigint[]) or (created_at >= ${since.toISOString()}::timestamptz and status in ('hold', 'completed'))
    union all
    select 'purchase' as kind, id::text, merchant_id::text, status, bot_id::text, created_at,
           exists (select 1 from ledger_entries e where e.key = 'purchase:' || p.id || ':late_revert') as late_revert from purchases p
     where id = any(${pur}::bigint[]) or (created_at >= ${since.toISOString()}::timestamptz and status in ('hold', 'completed'))`.execute(db);
  return r.rows.map((x) => ({
    kind: x.kind, id: Number(x.id), merchant_id: Number(x.merchant_id), status: x.status, bot_id: x.bot_id === null ? null : Number(x.bot_id), created_at: new Date(x.created_at),
    ...(x.late_revert ? { reversalRecorded: true } : {}),
  }));
}

/** Listings for sale that stand for a bot's item: bot listings, deposited items, imports with an asset. */
export async function listingsForSale(db: Db): Promise<ListingFact[]> {
  const r = await sql<{ id: string; game: string; source: string; source_ref: string | null; asset_id: string | null; bot_id: string | null }>`
    select l.id, l.game, l.source, l.source_ref, l.asset_id,
           case when l.source = 'bot' then split_part(l.source_ref, ':', 2)
                when l.source = 'deposit' then (select d.bot_id::text from deposits d where d.id = split_part(l.source_ref, ':', 2)::bigint)
           end as bot_id
      from listings l
     where l.status in ('live', 'reserved')
       -- withdrawn (a deposit reversed late): known gone, delisted when its purchase lets it go
       and l.withdrawn_at is null
       and (l.source in ('bot', 'deposit') or (l.source = 'import' and l.asset_id is not null))
       -- reserved by a purchase the buyer accepted (hold): the item is with the buyer until the hold ends
       and not exists (select 1 from purchases p where p.listing_id = l.id and p.status in ('hold', 'completed'))`.execute(db);
  return r.rows.map((l) => {
    const parts = (l.source_ref ?? '').split(':');
    return {
      id: l.id, game: l.game, asset_id: l.asset_id, bot_id: l.bot_id === null || l.bot_id === '' ? null : Number(l.bot_id),
      ...(l.source === 'deposit' ? { deposit: { id: Number(parts[1]), assetId: parts.slice(2).join(':') } } : {}),
    };
  });
}

export async function startRun(db: Db, since: Date): Promise<number> {
  const r = await db.insertInto('reconcile_runs').values({ since }).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

export async function finishRun(db: Db, runId: number, botsRead: number, readErrors: unknown[], found: readonly Discrepancy[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < found.length; i += 500) {
      const rows = found.slice(i, i + 500).map((d, k) => ({ run_id: runId, n: i + k + 1, ...d }));
      await trx.insertInto('reconcile_discrepancies').values(rows).execute();
    }
    await sql`update reconcile_runs set finished_at = now(), bots_read = ${botsRead}, read_errors = ${JSON.stringify(readErrors)}::jsonb,
                discrepancies = ${found.length} where id = ${runId}`.execute(trx);
  });
}

export interface RunRow {
  id: string;
  started_at: Date;
  finished_at: Date;
  since: Date;
  bots_read: number;
  read_errors: unknown;
  discrepancies: number;
}

export async function latestRun(db: Db): Promise<RunRow | undefined> {
  const r = await sql<RunRow>`select * from reconcile_runs where finished_at is not null order by id desc limit 1`.execute(db);
  return r.rows[0];
}

export async function discrepanciesOf(db: Db, runId: number, limit: number, offset: number): Promise<(Discrepancy & { n: number })[]> {
  const r = await sql<Discrepancy & { n: number; bot_id: string | null; record_id: string | null; merchant_id: string | null }>`
    select n, kind, bot_id::text, record_kind, record_id::text, merchant_id::text, trade_id, listing_id, asset_id, detail, action
      from reconcile_discrepancies where run_id = ${runId} order by n limit ${limit} offset ${offset}`.execute(db);
  const num = (v: string | null) => (v === null ? null : Number(v));
  return r.rows.map((d) => ({ ...d, bot_id: num(d.bot_id), record_id: num(d.record_id), merchant_id: num(d.merchant_id) }));
}

/** The latest finished run's discrepancies by kind (the metric), and when it finished. */
export async function latestCounts(db: Db): Promise<{ finishedAt: Date | null; byKind: { kind: string; n: number }[] }> {
  const run = await latestRun(db);
  if (!run) return { finishedAt: null, byKind: [] };
  const r = await sql<{ kind: string; n: number }>`select kind, count(*)::int as n from reconcile_discrepancies where run_id = ${run.id} group by kind`.execute(db);
  return { finishedAt: new Date(run.finished_at), byKind: r.rows };
}
