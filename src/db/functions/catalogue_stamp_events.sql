-- Stamps every committed unstamped event and folds them into their pages (version, live count,
-- updated_at = the stamp of the page's last change); answers how many. Run as its own statement
-- (the clock row lock is held to its commit). The check first keeps the common case lock-free.
-- Stampers (feed readers, the prune job) serialise on the catalogue_clock row; stamps only grow, so
-- a cursor handed out is never passed by an event stamped afterwards.
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
