-- The trade protection release time Steam shows on each item a deposit brought in (CS2: the item
-- sits in the bot's context 16 until then; its inventory entry's item_expiration). Where known,
-- the deposit's hold ends from the latest of its items' ends, plus STEAM_PROTECTION_MARGIN_SECONDS,
-- instead of from the acceptance plus the protection window. Null: not told (the window decides).
alter table steam_received_assets add column protection_ends_at timestamptz;
