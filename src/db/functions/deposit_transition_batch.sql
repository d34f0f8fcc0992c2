-- Group commit of deposit transitions (issue 12, phase 5): the offer changes one instance receives
-- at about the same time (sandbox accept/decline/…, platform reports) are applied as ONE statement
-- and ONE commit instead of one each (src/modules/deposits/transition-batch.ts). Every item is the
-- same transition as deposit-repo.ts changeInOneStatement would apply: the update guarded by the
-- status as read and the columns its webhook body reads, the release of the reserved assets of a
-- terminal status, the webhook event, the outbox jobs and the ledger movement. An item whose guard
-- fails, or whose movement key is already in the ledger, is left out (not changed; the caller
-- answers it through the transaction path). A movement that does not apply raises: nothing of the
-- batch commits, and the caller applies every item on its own.
--
-- Locks, so that batches of two instances never deadlock: the deposits first, in id order, then
-- the merchants' balances rows, in merchant order, each updated once with the batch's sum — last,
-- so a balances row is held only for the ledger inserts and the commit.
--
-- p_items: a JSON array of
--   { id, merchant_id, status, amount, trade_offer_id, platform_id, merchant_tx_id,   -- the guard
--     to_status, set_fail_reason, fail_reason, set_hold_end, hold_end_date, release,   -- the change
--     webhook: { status, result_url, payload } | null,
--     jobs: [ outbox rows as enqueue.ts outboxJson ],
--     movement: { key, kind, available_delta, hold_delta } | null }
-- Answers the changed deposits.
create or replace function deposit_transition_batch(p_items jsonb) returns setof deposits language plpgsql as $$
declare
  v_ids bigint[];
  v_rows deposits[];
  v_changed bigint[];
  v_merchants bigint[];
  v_neg int;
  v_want int;
  v_got int;
begin
  -- Every lookup below goes by an array of keys (an index scan each), never a join the planner
  -- could turn into a scan of a large table.
  select array_agg((e->>'id')::bigint order by (e->>'id')::bigint) into v_ids from jsonb_array_elements(p_items) e;

  -- The deposits, locked in id order (LockRows runs above the sort).
  perform 1 from deposits where id = any(v_ids) order by id for update;

  with i as (
    select * from jsonb_to_recordset(p_items) as x(
      id bigint, merchant_id bigint, status text, amount bigint, trade_offer_id text, platform_id text, merchant_tx_id text,
      to_status text, set_fail_reason boolean, fail_reason text, set_hold_end boolean, hold_end_date timestamptz)
  ), changed as (
    update deposits d
       set status = i.to_status,
           fail_reason = case when i.set_fail_reason then i.fail_reason else d.fail_reason end,
           hold_end_date = case when i.set_hold_end then i.hold_end_date else d.hold_end_date end,
           updated_at = now()
      from i
     where d.id = any(v_ids)
       and d.id = i.id
       and d.merchant_id = i.merchant_id
       and d.status = i.status
       and d.amount = i.amount
       and d.trade_offer_id is not distinct from i.trade_offer_id
       and d.platform_id is not distinct from i.platform_id
       and d.merchant_tx_id is not distinct from i.merchant_tx_id
       -- a movement already in the ledger: the transaction path answers it (duplicate, no second credit)
       and not exists (select 1 from jsonb_array_elements(p_items) e
                        where (e->>'id')::bigint = d.id and e->'movement' <> 'null'::jsonb
                          and exists (select 1 from ledger_entries l where l.key = e->'movement'->>'key'))
    returning d.*
  )
  select array_agg(row(c.*)::deposits order by c.merchant_id, c.id), array_agg(c.id order by c.id) into v_rows, v_changed from changed c;

  if v_rows is null then
    return;
  end if;

  -- The assets of a deposit that ended are the user's again.
  update deposit_items di set reserved = false
   where di.deposit_id = any(v_changed) and di.reserved
     and di.deposit_id in (select (e->>'id')::bigint from jsonb_array_elements(p_items) e where (e->>'release')::boolean);

  -- The webhook events (after an earlier pending event of the record, as webhookInsert) and jobs.
  insert into webhook_events (merchant_id, kind, record_id, status, payload, target_url, not_before)
  select m.id, 'deposit', r.id, e->'webhook'->>'status', e->'webhook'->'payload',
         coalesce(nullif(e->'webhook'->>'result_url', ''), nullif(m.webhook_url, '')),
         (select max(p.next_attempt_at) from webhook_events p
           where p.kind = 'deposit' and p.record_id = r.id and p.state = 'pending')
    from unnest(v_rows) r
    join jsonb_array_elements(p_items) e on (e->>'id')::bigint = r.id
    join merchants m on m.id = r.merchant_id
   where e->'webhook' <> 'null'::jsonb and coalesce(nullif(e->'webhook'->>'result_url', ''), nullif(m.webhook_url, '')) is not null
   order by r.merchant_id, r.id;

  insert into job_outbox (task, payload, queue_name, run_at, max_attempts, job_key, priority, preserve_run_at)
  select j.task, j.payload, j.queue_name, j.run_at, j.max_attempts, j.job_key, j.priority, coalesce(j.preserve_run_at, false)
    from unnest(v_rows) r
    join jsonb_array_elements(p_items) e on (e->>'id')::bigint = r.id,
         jsonb_to_recordset(coalesce(e->'jobs', '[]'::jsonb))
           as j(task text, payload json, queue_name text, run_at timestamptz, max_attempts smallint, job_key text, priority smallint,
                preserve_run_at boolean)
   order by r.merchant_id, r.id;

  -- The movements of the changed deposits: the merchants' balances rows locked in merchant order,
  -- then one ledger entry per movement (its balance after, in deposit order) and one update per merchant.
  select array_agg(distinct r.merchant_id) into v_merchants
    from unnest(v_rows) r join jsonb_array_elements(p_items) e on (e->>'id')::bigint = r.id
   where e->'movement' <> 'null'::jsonb;
  if v_merchants is null then
    return query select * from unnest(v_rows);
    return;
  end if;
  perform 1 from balances where merchant_id = any(v_merchants) order by merchant_id for update;

  with mv as (
    select r.id, r.merchant_id, e->'movement'->>'key' as key, e->'movement'->>'kind' as kind,
           (e->'movement'->>'available_delta')::bigint as a, (e->'movement'->>'hold_delta')::bigint as h
      from unnest(v_rows) r join jsonb_array_elements(p_items) e on (e->>'id')::bigint = r.id
     where e->'movement' <> 'null'::jsonb
  ), runs as (
    select mv.*, b.available + sum(mv.a) over w as available_after, b.hold + sum(mv.h) over w as hold_after
      from mv join balances b on b.merchant_id = mv.merchant_id and b.merchant_id = any(v_merchants)
    window w as (partition by mv.merchant_id order by mv.id rows unbounded preceding)
  ), ins as (
    insert into ledger_entries (merchant_id, key, kind, available_delta, hold_delta, available_after, hold_after, ref_type, ref_id)
    select merchant_id, key, kind, a, h, available_after, hold_after, 'deposit', id
      from runs
     where available_after >= 0 and hold_after >= 0
     order by merchant_id, id
    on conflict (key) do nothing
    returning merchant_id
  ), totals as (
    select merchant_id, sum(a) as a, sum(h) as h from mv group by merchant_id
  ), upd as (
    update balances b set available = b.available + t.a, hold = b.hold + t.h, updated_at = now()
      from totals t where b.merchant_id = any(v_merchants) and b.merchant_id = t.merchant_id
    returning b.merchant_id
  )
  select (select count(*) from runs where available_after < 0 or hold_after < 0),
         (select count(*) from mv),
         (select count(*) from ins) + 0 * (select count(*) from upd)
    into v_neg, v_want, v_got;

  -- A movement refused (funds) or taken by a twin: nothing of the batch may commit.
  if v_neg > 0 or v_got <> v_want then
    raise exception 'deposit_transition_batch: a movement did not apply' using errcode = 'P0001';
  end if;

  return query select * from unnest(v_rows);
end $$;
