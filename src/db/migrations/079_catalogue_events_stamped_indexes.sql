-- Issue 26 point 4 (write amplification): a catalogue event is inserted unstamped (at null) and
-- stamped after its commit (catalogue_stamp_events). The stamp is a non-HOT update, so every event
-- went into its two `at` indexes twice: once with the null that no reader asks for. Every reader of
-- these indexes asks for `at >=`, `at <` or `(at, id) >`, each of which implies `at is not null`, so
-- the indexes now hold only stamped events: two index entries fewer an event, which is one per
-- listing a purchase reserves or a deposit lists (bench/RESULTS.md, stop 41).
drop index if exists catalogue_events_at_idx;
drop index if exists catalogue_events_game_at_idx;
create index catalogue_events_at_idx on catalogue_events (at) where at is not null;
create index catalogue_events_game_at_idx on catalogue_events (game, at) where at is not null;
