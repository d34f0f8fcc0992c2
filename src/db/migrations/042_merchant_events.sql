-- Issue 24 (events API): the merchant reads its own webhook events (GET /api/v1/merchant/events).
--
-- Test events sent from the dashboard are recorded too, as kind 'test' (record_id 0), already
-- settled (delivered or exhausted), with the one attempt made; they are never claimed by the
-- dispatcher (it takes pending events only). Their `webhook-id` was random, so it is kept here;
-- for the other events it is derived from the id (evt_<id>) and this column stays null.
alter table webhook_events drop constraint if exists webhook_events_kind_check;
alter table webhook_events add constraint webhook_events_kind_check check (kind in ('deposit', 'purchase', 'test'));
alter table webhook_events add column webhook_id text;
-- The list is served newest first by webhook_events_merchant_idx (merchant_id, id desc) with an id
-- cursor, and the record filter by webhook_events_record_idx (kind, record_id, id): no new index.
