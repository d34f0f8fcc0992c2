-- Purchase creation (purchase_create_fast, migration 012) takes the merchant's balances row lock
-- last. Every purchase of one merchant updates that row, and the lock is held until the commit's
-- WAL flush, so a merchant's purchases commit one at a time: the shorter the hold, the more of
-- them per second. 012 debited first and then wrote the ledger entry, the listing, the purchase
-- snapshot and the outbox jobs under the lock; here those come first and the debit + ledger entry
-- last (one statement either way: a refusal still undoes everything).
create or replace function purchase_create_fast(
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
  -- Last: the merchant's balances row lock is held from here to the commit (with its WAL flush),
  -- so every other write of this purchase is done before it is taken.
  update balances set available = available - v_price, updated_at = now()
   where merchant_id = p_merchant_id and available - v_price >= 0
  returning * into v_bal;
  if v_bal.merchant_id is null then
    raise exception 'purchase: insufficient balance' using errcode = 'GWPFB';
  end if;
  insert into ledger_entries (merchant_id, key, kind, available_delta, hold_delta, available_after, hold_after, ref_type, ref_id)
  values (p_merchant_id, 'purchase:' || v_p.id || ':reserve', 'purchase_reserve', -v_price, 0, v_bal.available, v_bal.hold, 'purchase', v_p.id);

  return next v_p;
end $$;
