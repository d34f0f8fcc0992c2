-- The one writer of a deposit's status change (src/modules/deposits/deposit-transitions.ts calls it
-- for every transition: a group of concurrent offer changes as one statement and one commit, or one
-- transition alone — in its own commit or in the caller's transaction; a batch of one is a batch).
-- Every item is: the update guarded by the deposit as the caller read it (its status and the columns
-- its webhook body reads), the columns the transition sets, the release of the reserved assets of a
-- terminal status, the webhook event, the outbox jobs, the listings of a completed deposit's items
-- (catalogue_add_deposit_items) and the ledger movement (through ledger_apply, the one writer of
-- the balance). An item whose guard fails is left out (not changed; the caller
-- reads the deposit again). A movement whose key is already in the ledger is a no-op (the status
-- still changes, no second credit); a movement refused (funds) raises GWNSF: nothing of the call
-- commits, and the caller applies each item alone (a refusal alone is the caller's error).
--
-- Locks, so that batches of two instances never deadlock: the deposits first, in id order, then
-- the merchants' balances rows, in merchant order, each updated once with the batch's sum — last,
-- so a balances row is held only for the ledger inserts and the commit.
--
-- p_items: a JSON array of
--   { id, merchant_id, status, amount, trade_offer_id, platform_id, merchant_tx_id,   -- the guard
--     set: { column: value, … },   -- the change: status and any of the columns listed below
--     release,                     -- free the deposit's reserved assets (a terminal status)
--     webhook: { status, result_url, payload } | null,
--     jobs: [ outbox rows as enqueue.ts outboxJson ],
--     movement: { key, kind, available_delta, hold_delta } | null }
-- Answers the changed deposits.
create or replace function deposit_transition_batch(p_items jsonb) returns setof deposits language plpgsql as $$
declare
  v_ids bigint[];
  v_rows deposits[];
  v_changed bigint[];
  v_completed bigint[];
begin
  -- Every lookup below goes by an array of keys (an index scan each), never a join the planner
  -- could turn into a scan of a large table.
  select array_agg((e->>'id')::bigint order by (e->>'id')::bigint) into v_ids from jsonb_array_elements(p_items) e;

  -- The deposits, locked in id order (LockRows runs above the sort).
  perform 1 from deposits where id = any(v_ids) order by id for update;

  with i as (
    select x.*, e->'set' as set
      from jsonb_array_elements(p_items) e,
           jsonb_to_record(e) as x(id bigint, merchant_id bigint, status text, amount bigint, trade_offer_id text, platform_id text,
                                   merchant_tx_id text)
  ), changed as (
    -- Every column a transition may set (not id, merchant_id, flow, created_at): those absent from
    -- the item's set keep the row's value (jsonb_populate_record over the row itself).
    update deposits d
       set (status, merchant_tx_id, game, partner, token, platform_id, amount, bot_id, bot_name, bot_platform_id,
            trade_offer_id, trade_offer_expiry_at, hold_end_date, fail_reason, result_url, success_url, fail_url,
            custom_currency, custom_currency_multiplier, custom_currency_rate, quote_expires_at, from_preview,
            hosted_token, hosted_expires_at, fail_cause)
         = (select s.status, s.merchant_tx_id, s.game, s.partner, s.token, s.platform_id, s.amount, s.bot_id, s.bot_name, s.bot_platform_id,
                   s.trade_offer_id, s.trade_offer_expiry_at, s.hold_end_date, s.fail_reason, s.result_url, s.success_url, s.fail_url,
                   s.custom_currency, s.custom_currency_multiplier, s.custom_currency_rate, s.quote_expires_at, s.from_preview,
                   s.hosted_token, s.hosted_expires_at, s.fail_cause
              from jsonb_populate_record(d, i.set) s),
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

  -- The items of the deposits that completed join the catalogue, in the completing transaction.
  v_completed := array(select r.id from unnest(v_rows) r where r.status = 'completed' order by r.id);
  if cardinality(v_completed) > 0 then
    perform catalogue_add_deposit_items(v_completed);
  end if;

  -- The movements of the changed deposits, last (ledger_apply locks the balances rows in merchant
  -- order and writes each once). A refused one: nothing of the call may commit.
  if exists (
    select 1
      from ledger_apply((
        select jsonb_agg(jsonb_build_object('merchant_id', r.merchant_id, 'key', e->'movement'->>'key', 'kind', e->'movement'->>'kind',
                                            'available_delta', (e->'movement'->>'available_delta')::bigint,
                                            'hold_delta', (e->'movement'->>'hold_delta')::bigint, 'ref_type', 'deposit', 'ref_id', r.id)
                         order by r.merchant_id, r.id)
          from unnest(v_rows) r join jsonb_array_elements(p_items) e on (e->>'id')::bigint = r.id
         where e->'movement' <> 'null'::jsonb)) la
     where la.r_outcome = 'refused'
  ) then
    raise exception 'deposit_transition_batch: a movement was refused (insufficient balance)' using errcode = 'GWNSF';
  end if;

  return query select * from unnest(v_rows);
end $$;
