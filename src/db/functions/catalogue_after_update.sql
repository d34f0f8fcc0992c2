-- The catalogue's change feed (catalogue_events): statement-level triggers on listings with
-- transition tables (a 1000-row import is one insert of events). Writers only insert their events
-- unstamped (at null, delta = the page's live-count change); catalogue_stamp_events gives them their
-- place after the commit, so no lock is shared by the writers.
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

drop trigger if exists listings_changes_update on listings;
create trigger listings_changes_update after update on listings
  referencing old table as old_rows new table as new_rows for each statement execute function catalogue_after_update();
