-- One id sequence for deposits and purchases (issue 21). The spec's webhook `sign` is
-- base64(sha256(id + secret)) with the merchant's one secret for both kinds (6.1 trade_id, 6.2
-- purchase_id), so a deposit and a purchase with equal ids would carry equal signs: a receiver could
-- not tell them apart by `sign`. From now on both draw from one sequence, so no purchase has the id
-- of a deposit. Rows made before keep their ids.
create sequence record_ids;
select setval('record_ids', greatest((select coalesce(max(id), 0) from deposits), (select coalesce(max(id), 0) from purchases)) + 1, false);
alter table deposits alter column id set default nextval('record_ids');
alter table purchases alter column id set default nextval('record_ids');
