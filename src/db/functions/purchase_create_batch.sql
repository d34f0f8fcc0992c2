-- Purchase creation in batches (group commit): the purchases one instance receives at about the
-- same time are created by one call of purchase_create_batch, in one transaction with one commit.
-- Each purchase is the same all-or-nothing creation as purchase_create_fast (migrations 012, 017):
-- the purchase row, the listing reserved, the outbox jobs if any, the debit and its ledger entry. What a
-- batch saves is everything a purchase paid for being alone: a round trip, a transaction, a WAL
-- flush to wait for, a backend woken among 64, and the merchant's balances row written and locked
-- once per batch instead of once per purchase (one merchant's purchases used to commit one per flush).
--
-- A purchase that is not a plain success gets outcome 'fallback' with nothing written for it (no
-- exception, so no subtransaction per purchase), and the gateway runs it through the
-- two-statement transaction path, which stores the failure with its reason:
--   * every check that can refuse runs before the first write: the listing (locked, live, price
--     within max_price) and the merchant's available balance (row locked, read once per merchant
--     and then tracked here);
--   * a batch waits for nothing but balances rows, taken in merchant order (the items are processed
--     by merchant_id), so two batches cannot deadlock, nor a batch and the transaction path: the
--     listing is taken with SKIP LOCKED (by asset id too), and a merchant_tx_id with
--     pg_try_advisory_xact_lock(22, purchase_tx_lock_key(…)), the lock every creator of that
--     merchant_tx_id holds from before its insert to its commit (the transaction path takes it
--     waiting, first) — so the insert never waits on the unique index for a twin in flight
--     elsewhere, which could otherwise close a cycle (that twin waiting for the batch's listing).
-- A merchant_tx_id already stored (committed, or earlier in this batch) is outcome 'twin', told by
-- the unique constraint at the insert (the gateway looked for a stored one before: twins are rare
-- here, and checking first would cost every purchase an index probe).
create or replace function purchase_create_batch(p_items json)
returns table (r_idx int, r_outcome text, r_purchase purchases)
language plpgsql as $$
declare
  it record;
  v_l listings;
  v_p purchases;
  v_price bigint;
  v_merchant bigint;   -- whose balances row is locked, with its values in v_available / v_hold
  v_available bigint;
  v_hold bigint;
  v_debited boolean := false; -- v_available moved since it was read: to be written back
begin
  for it in
    select * from json_to_recordset(p_items) as x(
      i int, merchant_id bigint, merchant_tx_id text, game text, partner bigint, token text, platform_id text,
      platform_name text, platform_avatar_url text, at timestamptz, asset_id text, name text, markup float8,
      max_price bigint, jobs json)
    order by merchant_id, i
  loop
    r_idx := it.i;
    r_purchase := null;

    if it.merchant_tx_id is not null and not pg_try_advisory_xact_lock(22, purchase_tx_lock_key(it.merchant_id, it.merchant_tx_id)) then
      r_outcome := 'fallback'; -- a twin is being created elsewhere: the transaction path waits for it
      return next;
      continue;
    end if;

    if it.asset_id is not null then
      select * into v_l from listings where id = it.asset_id and game = it.game and status = 'live' for update skip locked;
    else
      select * into v_l from listings where game = it.game and name = it.name and status = 'live'
       order by base_price, id limit 1 for update skip locked;
    end if;
    if v_l.id is null then
      r_outcome := 'fallback';
      return next;
      continue;
    end if;
    v_price := sale_price(v_l.base_price, it.markup);
    if it.max_price is not null and v_price > it.max_price then
      r_outcome := 'fallback';
      return next;
      continue;
    end if;

    if v_merchant is distinct from it.merchant_id then
      if v_debited then
        update balances set available = v_available, updated_at = now() where merchant_id = v_merchant;
        v_debited := false;
      end if;
      v_merchant := it.merchant_id;
      v_available := null;
      select available, hold into v_available, v_hold from balances where merchant_id = it.merchant_id for update;
    end if;
    if v_available is null or v_available < v_price then
      r_outcome := 'fallback';
      return next;
      continue;
    end if;

    -- The purchase as it will stay (the item snapshot in the same write: no second, non-HOT update).
    insert into purchases (merchant_id, merchant_tx_id, game, partner, token, platform_id, platform_name, platform_avatar_url,
                           status, amount, listing_id, item_name, item_price, item_image_url, item_asset_id, created_at, updated_at)
    values (it.merchant_id, it.merchant_tx_id, it.game, it.partner, it.token, it.platform_id, it.platform_name, it.platform_avatar_url,
            'pending', v_price, v_l.id, v_l.name, v_price, v_l.image_url, v_l.asset_id, it.at, it.at)
    on conflict on constraint purchases_merchant_tx_id_key do nothing
    returning * into v_p;
    if v_p.id is null then
      r_outcome := 'twin'; -- committed before this batch took the lock: nothing written for it
      return next;
      continue;
    end if;

    update listings set status = 'reserved', reserved_by = v_p.id, updated_at = now() where id = v_l.id;
    if json_array_length(it.jobs) > 0 then -- none since the purchase dispatcher (023); the parameter stays general
      insert into job_outbox (task, payload, queue_name, run_at, max_attempts, job_key, priority, preserve_run_at)
      select j.task, j.payload, j.queue_name, j.run_at, j.max_attempts, j.job_key, j.priority, coalesce(j.preserve_run_at, false)
        from json_to_recordset(replace(it.jobs::text, '9007199254740991', v_p.id::text)::json)
          as j(task text, payload json, queue_name text, run_at timestamptz, max_attempts smallint, job_key text, priority smallint,
               preserve_run_at boolean);
    end if;
    v_available := v_available - v_price;
    v_debited := true;
    insert into ledger_entries (merchant_id, key, kind, available_delta, hold_delta, available_after, hold_after, ref_type, ref_id)
    values (it.merchant_id, 'purchase:' || v_p.id || ':reserve', 'purchase_reserve', -v_price, 0, v_available, v_hold, 'purchase', v_p.id);

    r_outcome := 'created';
    r_purchase := v_p;
    return next;
  end loop;
  -- The last merchant's balance (the CHECK constraint stays the backstop against an overdraft).
  if v_debited then
    update balances set available = v_available, updated_at = now() where merchant_id = v_merchant;
  end if;
end $$;
