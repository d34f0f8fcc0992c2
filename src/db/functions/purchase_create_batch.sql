-- The one writer of a purchase's creation (src/modules/purchases/create.ts calls it, batched or alone):
-- per purchase, the purchase row, the listing reserved and the debit `purchase:<id>:reserve` (through
-- ledger_apply, the one writer of the balance) — all or nothing — or, when it cannot be bought, the
-- purchase stored `failed` with its reason. The creation rules are stated here only: the listing (by
-- asset id, or the cheapest live one of a name), the price (sale_price), max_price, the balance.
--
-- Two modes, per item (`wait`):
--
-- Batched (wait false; create-batcher.ts): the purchases one instance receives at about the same time
-- are created by one call, in one transaction with one commit. What a batch saves is everything a
-- purchase paid for being alone: a round trip, a transaction, a WAL flush to wait for, a backend woken
-- among 64, and the merchant's balances row written and locked once per batch instead of once per
-- purchase. A purchase that is not a plain success gets outcome 'fallback' with nothing written for it
-- (no exception, so no subtransaction per purchase); the gateway then calls it alone, waiting:
--   * every check that can refuse runs before the first write: the listing (locked, live, price
--     within max_price) and the merchant's available balance (row locked, read once per merchant
--     and then tracked here; ledger_apply writes the debits at the end);
--   * a batch waits for nothing but balances rows, taken in merchant order (the items are processed
--     by merchant_id), so two batches cannot deadlock, nor a batch and a waiting creation: the
--     listing is taken with SKIP LOCKED (by asset id too), and a merchant_tx_id with
--     pg_try_advisory_xact_lock(22, purchase_tx_lock_key(…)), the lock every creator of that
--     merchant_tx_id holds from before its insert to its commit (a waiting creation takes it
--     waiting, first) — so the insert never waits on the unique index for a twin in flight
--     elsewhere, which could otherwise close a cycle (that twin waiting for the batch's listing).
--   The loop only checks and locks; the accepted purchases are written after it, together: one
--   INSERT of the purchases, one UPDATE reserving their listings (the listings' statement trigger
--   fires once), one ledger_apply. A listing taken earlier in the batch is excluded by id (SKIP
--   LOCKED does not skip the batch's own locks). A merchant_tx_id earlier in this batch is outcome
--   'twin' at once; one committed before is 'twin' too, told by the unique constraint at the INSERT
--   (the gateway does not look it up first: that cost every purchase a round trip, for a rare
--   repeat), and its listing stays live. Until then the repeat holds a listing and part of the
--   balance as a concurrent purchase would: a purchase by the same name in the same batch takes the
--   next cheapest live one (SKIP LOCKED), one short of the tracked balance goes the alone path.
--   An item with `lease_until` is written as the dispatcher's claim would leave it (attempt 1, started
--   at its creation, leased until then): the creating instance's dispatcher sends it without claiming
--   it (one UPDATE of eleven indexes a purchase fewer). Unsent, its lease runs out and any instance
--   claims it, as after a claim.
--
-- Alone (wait true, one item, in the caller's transaction: create.ts): waits for the merchant_tx_id's
-- lock, inserts the purchase ('twin' when one is stored), locks the listing (by asset id: waiting,
-- whatever its status; by name: the cheapest live one, SKIP LOCKED), then either the same creation
-- ('created') or the purchase stored failed with what it would have bought ('failed'; the caller
-- adds its webhook in the same transaction). Lock order: purchases row → listings row → balances row
-- → the listing UPDATE. `provider_down`: the platform did not answer the trade link check: stored
-- failed 'provider_unavailable'.
--
-- Amount of a purchase that failed at creation: the price it attempted to pay (0 when no listing was
-- found). No ledger entry exists for it, and a refund needs the `purchase:<id>:reserve` entry, so the
-- number never moves money.
create or replace function purchase_create_batch(p_items json)
returns table (r_idx int, r_outcome text, r_purchase purchases)
language plpgsql as $$
declare
  it record;
  v_l listings;
  v_p purchases;
  v_price bigint;
  v_reason text;
  v_merchant bigint;   -- whose balances row is locked, with its available balance in v_available
  v_available bigint;
  -- The batch's accepted purchases, written together after the loop (one INSERT, one listings
  -- UPDATE, one ledger_apply): a statement per purchase paid its executor start and the listings'
  -- statement trigger once each.
  a_i int[] := '{}';
  a_merchant bigint[] := '{}';
  a_tx text[] := '{}';
  a_game text[] := '{}';
  a_partner bigint[] := '{}';
  a_token text[] := '{}';
  a_pid text[] := '{}';
  a_pname text[] := '{}';
  a_pavatar text[] := '{}';
  a_at timestamptz[] := '{}';
  a_lease timestamptz[] := '{}'; -- leased to the creating instance's dispatcher (null: claimed later)
  a_price bigint[] := '{}';
  a_listing text[] := '{}';   -- also this batch's taken listings: SKIP LOCKED does not skip our own locks
  a_name text[] := '{}';
  a_image text[] := '{}';
  a_asset text[] := '{}';
  a_key text[] := '{}';       -- merchant_id:merchant_tx_id of each accepted one with a merchant_tx_id
  v_rows purchases[];        -- the ones inserted
  v_moves jsonb;
  k int;
begin
  for it in
    select * from json_to_recordset(p_items) as x(
      i int, merchant_id bigint, merchant_tx_id text, game text, partner bigint, token text, platform_id text,
      platform_name text, platform_avatar_url text, at timestamptz, asset_id text, name text, markup float8,
      max_price bigint, wait boolean, provider_down boolean, lease_until timestamptz)
    order by merchant_id, i
  loop
    r_idx := it.i;
    r_purchase := null;

    if coalesce(it.wait, false) then
      -- Alone, in the caller's transaction.
      if it.merchant_tx_id is not null then
        perform pg_advisory_xact_lock(22, purchase_tx_lock_key(it.merchant_id, it.merchant_tx_id));
      end if;
      insert into purchases (merchant_id, merchant_tx_id, game, partner, token, platform_id, platform_name, platform_avatar_url,
                             status, created_at, updated_at)
      values (it.merchant_id, it.merchant_tx_id, it.game, it.partner, it.token, it.platform_id, it.platform_name, it.platform_avatar_url,
              'pending', it.at, it.at)
      on conflict on constraint purchases_merchant_tx_id_key do nothing
      returning * into v_p;
      if v_p.id is null then
        r_outcome := 'twin';
        return next;
        continue;
      end if;
      v_l := null;
      if it.asset_id is not null then
        select * into v_l from listings where id = it.asset_id and game = it.game for update;
      else
        select * into v_l from listings where game = it.game and name = it.name and status = 'live'
         order by base_price, id limit 1 for update skip locked;
      end if;
      v_price := case when v_l.id is null then null else sale_price(v_l.base_price, it.markup) end;
      v_reason := case
        when coalesce(it.provider_down, false) then 'provider_unavailable'
        when v_l.id is null and it.asset_id is not null then 'item_not_available'
        when v_l.id is null then
          case when exists (select 1 from listings where game = it.game and name = it.name) then 'item_sold' else 'item_not_available' end
        when v_l.status <> 'live' then 'item_sold'
        when it.max_price is not null and v_price > it.max_price then
          case when it.asset_id is not null then 'price_changed' else 'item_specified_price_not_found' end
      end;
      if v_reason is null then
        select case la.r_outcome when 'applied' then null else 'insufficient_balance' end into v_reason
          from ledger_apply(jsonb_build_array(jsonb_build_object(
            'merchant_id', it.merchant_id, 'key', 'purchase:' || v_p.id || ':reserve', 'kind', 'purchase_reserve',
            'available_delta', -v_price, 'hold_delta', 0, 'ref_type', 'purchase', 'ref_id', v_p.id))) la;
      end if;
      if v_reason is null then
        update listings set status = 'reserved', reserved_by = v_p.id, updated_at = now() where id = v_l.id;
        r_outcome := 'created';
      else
        r_outcome := 'failed';
      end if;
      -- The purchase as it stays: the item snapshot (what it would have bought, when it failed).
      update purchases
         set listing_id = coalesce(v_l.id, listing_id), item_name = coalesce(v_l.name, item_name), item_price = coalesce(v_price, item_price),
             item_image_url = coalesce(v_l.image_url, item_image_url), item_asset_id = coalesce(v_l.asset_id, item_asset_id),
             amount = coalesce(v_price, amount),
             status = case when v_reason is null then status else 'failed' end,
             fail_reason = v_reason
       where id = v_p.id
      returning * into v_p;
      r_purchase := v_p;
      return next;
      continue;
    end if;

    if it.merchant_tx_id is not null and not pg_try_advisory_xact_lock(22, purchase_tx_lock_key(it.merchant_id, it.merchant_tx_id)) then
      r_outcome := 'fallback'; -- a twin is being created elsewhere: the waiting creation waits for it
      return next;
      continue;
    end if;
    -- A twin earlier in this batch (the advisory lock is this session's already): stored once.
    if it.merchant_tx_id is not null and (it.merchant_id || ':' || it.merchant_tx_id) = any(a_key) then
      r_outcome := 'twin';
      return next;
      continue;
    end if;

    if it.asset_id is not null then
      select * into v_l from listings where id = it.asset_id and game = it.game and status = 'live' and id <> all(a_listing)
         for update skip locked;
    else
      select * into v_l from listings where game = it.game and name = it.name and status = 'live' and id <> all(a_listing)
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
      v_merchant := it.merchant_id;
      v_available := null;
      select available into v_available from balances where merchant_id = it.merchant_id for update;
    end if;
    if v_available is null or v_available < v_price then
      r_outcome := 'fallback';
      return next;
      continue;
    end if;
    v_available := v_available - v_price;

    a_i := a_i || it.i;
    a_merchant := a_merchant || it.merchant_id;
    a_tx := a_tx || it.merchant_tx_id;
    a_game := a_game || it.game;
    a_partner := a_partner || it.partner;
    a_token := a_token || it.token;
    a_pid := a_pid || it.platform_id;
    a_pname := a_pname || it.platform_name;
    a_pavatar := a_pavatar || it.platform_avatar_url;
    a_at := a_at || it.at;
    a_lease := a_lease || it.lease_until;
    a_price := a_price || v_price;
    a_listing := a_listing || v_l.id;
    a_name := a_name || v_l.name;
    a_image := a_image || v_l.image_url;
    a_asset := a_asset || v_l.asset_id;
    if it.merchant_tx_id is not null then
      a_key := a_key || (it.merchant_id || ':' || it.merchant_tx_id);
    end if;
  end loop;

  if cardinality(a_i) = 0 then
    return;
  end if;

  -- The purchases as they will stay (the item snapshot in the same write: no second, non-HOT
  -- update), each listing reserved by its purchase. A merchant_tx_id stored before this batch took
  -- its lock is left out by the unique constraint (outcome 'twin': nothing written for it).
  with ins as (
    insert into purchases (merchant_id, merchant_tx_id, game, partner, token, platform_id, platform_name, platform_avatar_url,
                           status, amount, listing_id, item_name, item_price, item_image_url, item_asset_id, created_at, updated_at,
                           dispatch_attempts, dispatch_started_at, dispatch_next_at)
    select u.merchant_id, u.tx, u.game, u.partner, u.token, u.pid, u.pname, u.pavatar,
           'pending', u.price, u.listing, u.name, u.price, u.image, u.asset, u.at, u.at,
           case when u.lease is null then 0 else 1 end, case when u.lease is null then null else u.at end, coalesce(u.lease, '-infinity')
      from unnest(a_merchant, a_tx, a_game, a_partner, a_token, a_pid, a_pname, a_pavatar, a_at, a_price, a_listing, a_name, a_image, a_asset, a_lease)
             with ordinality as u(merchant_id, tx, game, partner, token, pid, pname, pavatar, at, price, listing, name, image, asset, lease, ord)
     order by u.ord
    on conflict on constraint purchases_merchant_tx_id_key do nothing
    returning *
  ), reserved as (
    update listings l set status = 'reserved', reserved_by = ins.id, updated_at = now() from ins where l.id = ins.listing_id
  )
  select array_agg(row(ins.*)::purchases order by ins.id) into v_rows from ins;

  -- The debits, last (the balances rows are locked above, in merchant order): each merchant's row
  -- written once. The checks above make a refusal impossible; one would undo the whole batch.
  select jsonb_agg(jsonb_build_object(
           'merchant_id', p.merchant_id, 'key', 'purchase:' || p.id || ':reserve', 'kind', 'purchase_reserve',
           'available_delta', -p.amount, 'hold_delta', 0, 'ref_type', 'purchase', 'ref_id', p.id) order by p.merchant_id, p.id)
    into v_moves from unnest(v_rows) p;
  if v_moves is not null and exists (select 1 from ledger_apply(v_moves) la where la.r_outcome <> 'applied') then
    raise exception 'purchase_create_batch: a debit did not apply';
  end if;

  for k in 1 .. coalesce(cardinality(v_rows), 0) loop
    r_purchase := v_rows[k];
    r_idx := a_i[array_position(a_listing, r_purchase.listing_id)];
    r_outcome := 'created';
    return next;
    a_listing[array_position(a_listing, r_purchase.listing_id)] := null; -- told
  end loop;
  r_purchase := null;
  r_outcome := 'twin';
  for k in 1 .. cardinality(a_i) loop
    if a_listing[k] is not null then
      r_idx := a_i[k];
      return next;
    end if;
  end loop;
end $$;
