-- Change feed without a global lock (issue 12), and notifications that invalidate the per-instance
-- API key cache.
--
-- Before: every catalogue writer (every purchase) took the catalogue_clock row lock to commit, so
-- the feed's `at` was in commit order. Now writers only insert their events unstamped (at null);
-- the position is given after the commit: a stamper stamps every committed unstamped event (it can
-- see no other), a fresh millisecond after the last stamp. Stampers (feed readers, the prune job)
-- serialise on the catalogue_clock row; writers never touch it, and a writer that commits late is
-- simply stamped later. Readers see only stamped events and stamps only grow, so a cursor handed
-- out is never passed by an event stamped afterwards: the feed stays gap-free with millisecond
-- ISO cursors, and no lock is shared by the writers.

alter table catalogue_events alter column at drop not null;
-- The event's effect on its page's live count (+1, -1, 0): unstamped events are the pages' pending
-- deltas, folded into catalogue_pages by the stamper. So writers do not lock the page row either.
alter table catalogue_events add column delta smallint not null default 0;
create index catalogue_events_unstamped_idx on catalogue_events (game, page) where at is null;

-- A page's version is catalogue_pages.version + its unstamped events; its live count likewise
-- (pageMeta). Stamping moves events from one term to the other in one commit: the sum never
-- moves backwards, and any committed change raises it. The triggers now only insert events.
create or replace function catalogue_after_insert() returns trigger language plpgsql as $$
begin
  insert into catalogue_events (game, page, listing_id, type, delta)
  select game, page, id, 'upsert', 1 from new_rows where status = 'live' order by id;
  return null;
end $$;

create or replace function catalogue_after_update() returns trigger language plpgsql as $$
begin
  insert into catalogue_events (game, page, listing_id, type, delta)
  select n.game, n.page, n.id,
         case when n.status = 'live' then 'upsert' else 'remove' end,
         case when o.status = 'live' and n.status <> 'live' then -1
              when o.status <> 'live' and n.status = 'live' then 1 else 0 end
    from new_rows n join old_rows o on o.id = n.id
   where catalogue_visible_change(o, n)
   order by n.id;
  return null;
end $$;

create or replace function catalogue_after_delete() returns trigger language plpgsql as $$
begin
  insert into catalogue_events (game, page, listing_id, type, delta)
  select game, page, id, 'remove', -1 from old_rows where status = 'live' order by id;
  return null;
end $$;

-- Stamps every committed unstamped event and folds them into their pages (version, live count,
-- updated_at = the stamp of the page's last change); answers how many. Run as its own statement
-- (the clock row lock is held to its commit). The check first keeps the common case lock-free.
create or replace function catalogue_stamp_events() returns integer language plpgsql as $$
declare
  base timestamptz;
  last_at timestamptz;
  n integer;
begin
  if not exists (select 1 from catalogue_events where at is null) then return 0; end if;
  select greatest(clock_timestamp(), date_trunc('milliseconds', last_event_at) + interval '1 millisecond')
    into base from catalogue_clock where id = 1 for update;
  -- A fresh snapshot after the lock: the previous stamper's work is visible, its rows skipped.
  with todo as (
    select id, row_number() over (order by id) as rn from catalogue_events where at is null
  ), st as (
    update catalogue_events e set at = base + (todo.rn - 1) * interval '1 microsecond'
      from todo where e.id = todo.id
    returning e.at, e.game, e.page, e.delta
  ), pg as (
    update catalogue_pages p
       set version = p.version + d.n, live_count = p.live_count + d.delta,
           updated_at = date_trunc('milliseconds', d.last_at)
      from (select game, page, count(*) as n, sum(delta)::int as delta, max(at) as last_at
              from st group by game, page) d
     where p.game = d.game and p.page = d.page
  )
  select max(at), count(*) into last_at, n from st;
  if n > 0 then
    update catalogue_clock set last_event_at = last_at where id = 1;
  end if;
  return n;
end $$;

-- Every change of a merchant row (key rotation, disable, whitelist, settings) tells every instance
-- in the same transaction: listeners drop their cached API key entries for that merchant.
create or replace function merchants_notify_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('merchant_changed', old.id::text);
  return null;
end $$;

create trigger merchants_changed after update or delete on merchants
  for each row execute function merchants_notify_change();
