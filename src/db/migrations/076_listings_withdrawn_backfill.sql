-- Migration 075 marks the listings of a deposit reversed after completion from now on. A listing
-- that was reserved by a purchase when its deposit was reversed before 075 would still go back on
-- sale if that purchase fails: mark those too. The reversals are the audit rows
-- deposit_reversed_after_completion (written whether or not the amount was recovered). The listing
-- id is deposit_listing_id's rule, written out here as it stands (the SQL functions are applied
-- after the migrations, so a migration cannot call them on a new database).
update listings l
   set withdrawn_at = now()
  from (select di.deposit_id, di.asset_id, row_number() over (partition by di.deposit_id order by di.id) - 1 as place
          from deposit_items di
         where di.deposit_id in (select (a.detail->>'deposit_id')::bigint from audit_log a
                                  where a.action = 'deposit_reversed_after_completion')) i
 where l.id = left(encode(sha256(convert_to('deposit:' || i.deposit_id || ':' || coalesce(i.asset_id, '#' || i.place), 'UTF8')), 'hex'), 40)
   and l.status = 'reserved' and l.withdrawn_at is null;
