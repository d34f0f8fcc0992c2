// The console's reads: merchants with balances, pending withdrawals, the webhook backlog and the
// job queue depth.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

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
