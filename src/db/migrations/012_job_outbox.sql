-- The job outbox (issue 12): business transactions no longer call graphile_worker.add_job(s).
--
-- graphile-worker 0.17's add_jobs runs pg_notify('jobs:insert', …) in the caller's transaction. A
-- transaction that has notified takes PostgreSQL's single notify-queue lock at commit and holds it
-- through the commit's WAL flush, so every purchase, status change and webhook scheduling on every
-- instance committed one at a time (no group commit). Now they insert their job specs here (a
-- plain table: no NOTIFY, no shared lock) and a relay (src/jobs/relay.ts) moves committed rows into
-- graphile-worker, a batch per transaction (one add_jobs, so one NOTIFY, per batch in general).
create table job_outbox (
  id bigint generated always as identity primary key,
  task text not null,
  payload json not null,
  queue_name text,
  run_at timestamptz,
  max_attempts smallint,
  job_key text,
  priority smallint,
  -- job_key_mode 'preserve_run_at' (else 'replace'); add_jobs takes the mode per call.
  preserve_run_at boolean not null default false
);

-- Moves up to `max_rows` committed outbox rows into graphile-worker and deletes them, in one
-- transaction (a crash leaves them in the outbox, nothing is lost or added twice). Rows go in id
-- order, so keyed jobs end as if each row had been added directly in that order: a batch handed to
-- one add_jobs holds each job key at most once and one key mode, and a row that breaks either rule
-- starts the next add_jobs. Relays serialise on an advisory lock that only they take, so two
-- instances never move the same key out of order. Answers the number of rows moved.
create function job_outbox_relay(max_rows int) returns int language plpgsql as $$
declare
  r job_outbox;
  batch graphile_worker.job_spec[] := '{}';
  batch_keys text[] := '{}';
  batch_preserve boolean; -- the batch's key mode, null while it has no keyed job
  moved bigint[] := '{}';
begin
  if not exists (select 1 from job_outbox) then
    return 0;
  end if;
  perform pg_advisory_xact_lock(hashtext('job_outbox_relay'));
  for r in select * from job_outbox order by id limit max_rows loop
    if r.job_key is not null
       and (r.job_key = any(batch_keys) or (batch_preserve is not null and batch_preserve <> r.preserve_run_at)) then
      perform graphile_worker.add_jobs(batch, coalesce(batch_preserve, false));
      batch := '{}';
      batch_keys := '{}';
      batch_preserve := null;
    end if;
    batch := batch || row(r.task, r.payload, r.queue_name, r.run_at, r.max_attempts, r.job_key, r.priority, null)::graphile_worker.job_spec;
    if r.job_key is not null then
      batch_keys := batch_keys || r.job_key;
      batch_preserve := r.preserve_run_at;
    end if;
    moved := moved || r.id;
  end loop;
  if cardinality(batch) > 0 then
    perform graphile_worker.add_jobs(batch, coalesce(batch_preserve, false));
  end if;
  -- Exactly the rows read: a row with a lower id may commit after the read (ids are taken at insert).
  delete from job_outbox where id = any(moved);
  return cardinality(moved);
end $$;

-- A purchase's creation in one statement (src/modules/purchases/create-repo.ts createInOneStatement):
-- run outside an explicit transaction, it is one round trip including its commit, so the
-- merchant's balances row lock is held only for the rest of the statement and the commit, never
-- across a round trip to the application. Same steps and lock order as the two-statement
-- transaction (purchases row → listings row → balances row → the listing UPDATE): insert the
-- purchase (a twin merchant_tx_id: nothing done, 'twin'); pick and lock the listing (by id, or
-- the cheapest live one of a name, SKIP LOCKED); the price (the application's applyRate in
-- IEEE doubles: round half up of base × markup + 1e-9, markup as the application computed it);
-- the guarded debit and its ledger entry `purchase:<id>:reserve`; the listing reserved; the item
-- snapshot; the jobs (outbox rows, the new id put in place of 9007199254740991 in their JSON).
-- Anything that is not a plain success (no listing, not live, over max_price, short balance)
-- raises GWPFB: the whole statement is undone and the application takes the two-statement path,
-- which stores the failure with its reason and webhook.
-- applyRate of src/domain/money.ts for a price (base >= 0): Math.round(base * markup + 1e-9) in
-- IEEE doubles, half up (test/purchases/round-trips.test.ts compares it with salePrice).
create function sale_price(base bigint, markup float8) returns bigint language plpgsql immutable as $$
declare
  x float8 := base::float8 * markup + 1e-9::float8;
begin
  return floor(x)::bigint + case when x - floor(x) >= 0.5::float8 then 1 else 0 end;
end $$;

create function purchase_create_fast(
  p_merchant_id bigint, p_merchant_tx_id text, p_game text, p_partner bigint, p_token text, p_platform_id text,
  p_platform_name text, p_platform_avatar_url text, p_now timestamptz,
  p_asset_id text, p_name text, p_markup float8, p_max_price bigint, p_jobs json
) returns setof purchases language plpgsql as $$
declare
  v_p purchases;
  v_l listings;
  v_price bigint;
  v_bal balances;
begin
  insert into purchases (merchant_id, merchant_tx_id, game, partner, token, platform_id, platform_name, platform_avatar_url,
                         status, created_at, updated_at)
  values (p_merchant_id, p_merchant_tx_id, p_game, p_partner, p_token, p_platform_id, p_platform_name, p_platform_avatar_url,
          'pending', p_now, p_now)
  on conflict on constraint purchases_merchant_tx_id_key do nothing
  returning * into v_p;
  if v_p.id is null then
    return; -- a twin with this merchant_tx_id exists
  end if;

  if p_asset_id is not null then
    select * into v_l from listings where id = p_asset_id and game = p_game for update;
  else
    select * into v_l from listings where game = p_game and name = p_name and status = 'live'
     order by base_price, id limit 1 for update skip locked;
  end if;
  if v_l.id is null or v_l.status <> 'live' then
    raise exception 'purchase: no live listing' using errcode = 'GWPFB';
  end if;

  v_price := sale_price(v_l.base_price, p_markup);
  if p_max_price is not null and v_price > p_max_price then
    raise exception 'purchase: over max_price' using errcode = 'GWPFB';
  end if;

  update balances set available = available - v_price, updated_at = now()
   where merchant_id = p_merchant_id and available - v_price >= 0
  returning * into v_bal;
  if v_bal.merchant_id is null then
    raise exception 'purchase: insufficient balance' using errcode = 'GWPFB';
  end if;
  insert into ledger_entries (merchant_id, key, kind, available_delta, hold_delta, available_after, hold_after, ref_type, ref_id)
  values (p_merchant_id, 'purchase:' || v_p.id || ':reserve', 'purchase_reserve', -v_price, 0, v_bal.available, v_bal.hold, 'purchase', v_p.id);

  update listings set status = 'reserved', reserved_by = v_p.id, updated_at = now() where id = v_l.id;
  update purchases
     set listing_id = v_l.id, item_name = v_l.name, item_price = v_price, item_image_url = v_l.image_url,
         item_asset_id = v_l.asset_id, amount = v_price, updated_at = p_now
   where id = v_p.id
  returning * into v_p;

  insert into job_outbox (task, payload, queue_name, run_at, max_attempts, job_key, priority, preserve_run_at)
  select j.task, j.payload, j.queue_name, j.run_at, j.max_attempts, j.job_key, j.priority, coalesce(j.preserve_run_at, false)
    from json_to_recordset(replace(p_jobs::text, '9007199254740991', v_p.id::text)::json)
      as j(task text, payload json, queue_name text, run_at timestamptz, max_attempts smallint, job_key text, priority smallint,
           preserve_run_at boolean);
  return next v_p;
end $$;
