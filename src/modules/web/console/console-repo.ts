// The console's reads: merchants with balances, pending withdrawals, the webhook backlog and the
// job queue depth.
import { sql } from 'kysely';
import type { Db } from '../../../db/database.js';

export function merchantsWithBalance(db: Db, before: number | undefined, limit: number) {
  let q = db
    .selectFrom('merchants as m')
    .leftJoin('balances as b', 'b.merchant_id', 'm.id')
    .select(['m.id', 'm.name', 'm.enabled', 'm.webhook_url', 'm.created_at', 'b.available', 'b.hold']);
  if (before) q = q.where('m.id', '<', before);
  return q.orderBy('m.id', 'desc').limit(limit).execute();
}

export function pendingWithdrawals(db: Db, limit: number) {
  return db
    .selectFrom('withdrawals as w')
    .innerJoin('merchants as m', 'm.id', 'w.merchant_id')
    .select(['w.id', 'w.merchant_id', 'm.name', 'w.amount', 'w.reference', 'w.created_at'])
    .where('w.status', '=', 'pending')
    .orderBy('w.id')
    .limit(limit)
    .execute();
}

export async function webhookBacklog(db: Db) {
  const r = await sql<{ state: string; n: number; oldest: Date | null }>`
    select state, count(*)::int as n, min(created_at) as oldest
      from webhook_events where state in ('pending', 'exhausted') group by state`.execute(db);
  return r.rows;
}

export async function jobQueueDepth(db: Db) {
  const r = await sql<{ task: string; waiting: number; running: number; failing: number }>`
    select t.identifier as task,
           count(*) filter (where j.locked_at is null)::int as waiting,
           count(*) filter (where j.locked_at is not null)::int as running,
           count(*) filter (where j.last_error is not null)::int as failing
      from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     group by t.identifier order by t.identifier`.execute(db);
  return r.rows;
}

export interface LookupHit {
  kind: 'deposit' | 'purchase';
  id: number;
  merchant_id: number;
  merchant_name: string;
  merchant_tx_id: string | null;
  trade_offer_id: string | null;
  status: string;
  amount: number;
  created_at: Date;
  matched: string;
}

/**
 * Any merchant's deposits and purchases whose id, merchant_tx_id, trade offer id or an item's asset
 * id equals one of the terms (the lookup's readings of what was typed); each by an index (partial, where not null). A
 * merchant_tx_id is looked up merchant by merchant in the unique (merchant_id, merchant_tx_id) keys
 * (073: no index of its own, which every write would pay for): a probe per merchant.
 */
export async function lookupRecords(db: Db, terms: { text: string; id?: number }[], limit = 50): Promise<LookupHit[]> {
  const texts = [...new Set(terms.map((t) => t.text))];
  const ids = [...new Set(terms.flatMap((t) => (t.id === undefined ? [] : [t.id])))];
  const r = await sql<LookupHit>`
    with hits as (
      select 'deposit' as kind, id, 'id' as matched from deposits where id = any(${ids}::bigint[])
      union all select 'deposit', d.id, 'merchant_tx_id' from merchants m cross join lateral
                  (select id from deposits where merchant_id = m.id and merchant_tx_id = any(${texts}::text[])) d
      union all select 'deposit', id, 'trade offer id' from deposits where trade_offer_id = any(${texts}::text[])
      union all select 'deposit', deposit_id, 'asset id' from deposit_items where asset_id = any(${texts}::text[])
      union all select 'purchase', id, 'id' from purchases where id = any(${ids}::bigint[])
      union all select 'purchase', p.id, 'merchant_tx_id' from merchants m cross join lateral
                  (select id from purchases where merchant_id = m.id and merchant_tx_id = any(${texts}::text[])) p
      union all select 'purchase', id, 'trade offer id' from purchases where trade_offer_id = any(${texts}::text[])
      union all select 'purchase', id, 'asset id' from purchases where item_asset_id = any(${texts}::text[])
    ), grouped as (
      select kind, id, string_agg(distinct matched, ', ') as matched from hits group by kind, id
    )
    select g.kind, g.id::int as id, g.matched, r.merchant_id, m.name as merchant_name, r.merchant_tx_id, r.trade_offer_id, r.status, r.amount, r.created_at
      from grouped g
      join (select 'deposit' as kind, id, merchant_id, merchant_tx_id, trade_offer_id, status::text, amount, created_at from deposits
             where id in (select id from grouped where kind = 'deposit')
            union all
            select 'purchase', id, merchant_id, merchant_tx_id, trade_offer_id, status::text, amount, created_at from purchases
             where id in (select id from grouped where kind = 'purchase')) r on r.kind = g.kind and r.id = g.id
      join merchants m on m.id = r.merchant_id
     order by g.id desc
     limit ${limit}`.execute(db);
  return r.rows.map((x) => ({ ...x, amount: Number(x.amount) }));
}
