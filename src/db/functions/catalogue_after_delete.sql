-- The catalogue's change feed (catalogue_events): statement-level triggers on listings with
-- transition tables (a 1000-row import is one insert of events). Writers only insert their events
-- unstamped (at null, delta = the page's live-count change); catalogue_stamp_events gives them their
-- place after the commit, so no lock is shared by the writers.
create or replace function catalogue_after_delete() returns trigger language plpgsql as $$
begin
  insert into catalogue_events (game, page, listing_id, type, delta)
  select game, page, id, 'remove', -1 from old_rows where status = 'live' order by id;
  return null;
end $$;

drop trigger if exists listings_changes_delete on listings;
create trigger listings_changes_delete after delete on listings
  referencing old table as old_rows for each statement execute function catalogue_after_delete();
