-- The advisory lock (class 22) of a merchant_tx_id: every creator of that merchant_tx_id holds it
-- from before its insert to its commit (see purchase_create_batch). A collision only makes two
-- creations wait for each other, never merges them (the unique constraint decides).
create or replace function purchase_tx_lock_key(p_merchant_id bigint, p_merchant_tx_id text) returns int language sql immutable as $$
  select hashtext(p_merchant_id::text || ':' || p_merchant_tx_id)
$$;
