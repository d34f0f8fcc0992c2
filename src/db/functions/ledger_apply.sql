-- The one writer of the balance: applies ledger movements — each an immutable ledger entry with a
-- unique key and the merchant's balances row moved by its deltas — and answers, per movement in the
-- order given (r_i, from 0), its outcome with the balance after it:
--   'applied'    the entry is written, the balance moved;
--   'duplicate'  its key is already in the ledger (committed, in flight elsewhere — the insert waits
--                for it — or earlier in this call): nothing done, the movement is a no-op;
--   'refused'    the balance would go below zero (available or hold), or the merchant has no
--                balances row: nothing done for it.
-- Callers: applyMovement (src/modules/ledger/ledger-moves.ts: one movement in the caller's
-- transaction), purchase_create_batch and deposit_transition_batch (the movements of a batch).
-- Locks: the merchants' balances rows in merchant order (movements are processed by merchant, then
-- in the order given), each row updated once per call with the sum of its applied movements — so a
-- batch writes a merchant's row once, and the row lock is taken here and held to the commit.
-- p_movements: a JSON array of { merchant_id, key, kind, available_delta, hold_delta, ref_type, ref_id }.
create or replace function ledger_apply(p_movements jsonb)
returns table (r_i int, r_outcome text, r_entry_id bigint, r_available bigint, r_hold bigint)
language plpgsql as $$
declare
  m record;
  v_merchant bigint;
  v_found boolean;
  v_available bigint;
  v_hold bigint;
  v_moved boolean := false; -- v_available / v_hold moved since they were read: to be written back
begin
  for m in
    select (e.i - 1)::int as i, (e.v->>'merchant_id')::bigint as merchant_id, e.v->>'key' as key, e.v->>'kind' as kind,
           (e.v->>'available_delta')::bigint as a, (e.v->>'hold_delta')::bigint as h,
           e.v->>'ref_type' as ref_type, (e.v->>'ref_id')::bigint as ref_id
      from jsonb_array_elements(p_movements) with ordinality as e(v, i)
     order by 2, 1
  loop
    r_i := m.i;
    r_entry_id := null;
    -- A key already in the ledger first: a retried movement neither changes nor locks the balance.
    if ledger_key_applied(m.key) then -- ledger_key_applied.sql: by the unique index, whatever the statistics
      r_outcome := 'duplicate';
      r_available := null;
      r_hold := null;
      return next;
      continue;
    end if;
    if v_merchant is distinct from m.merchant_id then
      if v_moved then
        update balances set available = v_available, hold = v_hold, updated_at = now() where merchant_id = v_merchant;
        v_moved := false;
      end if;
      v_merchant := m.merchant_id;
      select available, hold into v_available, v_hold from balances where merchant_id = m.merchant_id for update;
      v_found := found;
    end if;
    if not v_found or v_available + m.a < 0 or v_hold + m.h < 0 then
      r_outcome := 'refused';
    else
      insert into ledger_entries (merchant_id, key, kind, available_delta, hold_delta, available_after, hold_after, ref_type, ref_id)
      values (m.merchant_id, m.key, m.kind, m.a, m.h, v_available + m.a, v_hold + m.h, m.ref_type, m.ref_id)
      on conflict (key) do nothing
      returning id into r_entry_id;
      if r_entry_id is null then
        r_outcome := 'duplicate'; -- a twin committed the same key while this one waited for it
      else
        r_outcome := 'applied';
        v_available := v_available + m.a;
        v_hold := v_hold + m.h;
        v_moved := true;
      end if;
    end if;
    r_available := v_available;
    r_hold := v_hold;
    return next;
  end loop;
  if v_moved then
    update balances set available = v_available, hold = v_hold, updated_at = now() where merchant_id = v_merchant;
  end if;
end $$;
