-- Jobs of versions that were never released, with no handler any more (issue 23): purchase_dispatch
-- (the purchase dispatcher sends every pending purchase, woken and polled), purchase_pending_watchdog
-- (the dispatcher's sweep fails purchases pending too long) and webhook_deliver (the webhook
-- dispatcher sends every due event). A database of an earlier commit may still hold some, queued or
-- in the outbox: nothing would ever take them, and the work they stood for is found without them.
-- graphile-worker's schema exists here (migrate() runs its migrations first).
delete from job_outbox where task in ('purchase_dispatch', 'purchase_pending_watchdog', 'webhook_deliver');
delete from graphile_worker._private_jobs j
 using graphile_worker._private_tasks t
 where t.id = j.task_id and t.identifier in ('purchase_dispatch', 'purchase_pending_watchdog', 'webhook_deliver');

-- Quotes in the forms before 019 (JSON lines of 014; deposit_quote_items before 014): only drafts
-- quoted by such a version hold them, and a draft lives QUOTE_TTL_SECONDS. Their drafts stay: a
-- commit of one answers that its items were not quoted by get-prices (quote again).
alter table deposit_quotes drop constraint deposit_quotes_one_form;
delete from deposit_quotes where packed is null;
alter table deposit_quotes drop column lines;
alter table deposit_quotes alter column packed set not null;
drop table deposit_quote_items;
