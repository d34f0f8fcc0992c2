-- purchases_merchant_created_idx (merchant_id, created_at), from 003, is a prefix of
-- purchases_merchant_created_id_idx (merchant_id, created_at, id) include (amount, status), from
-- 009: every query it served, the wider one serves. A purchase's insert and each of its status
-- changes (status is indexed, so none is a HOT update) wrote an entry into both (issue 12).
drop index if exists purchases_merchant_created_idx;
