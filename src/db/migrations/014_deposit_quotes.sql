-- Issue 12 (get-prices at 2 000 names): a get-prices quote is one row holding its lines as one
-- JSON array of [market_hash_name, price, original_price] (mills), instead of one
-- deposit_quote_items row per name. 2 000 rows cost 2 000 heap and index inserts and 2 000
-- foreign-key checks inside the request; one row costs one. The lines are only ever read whole,
-- by the draft's commit, so `json` (kept as sent, validated, not decomposed like jsonb) is enough.
create table deposit_quotes (
  deposit_id bigint primary key references deposits(id) on delete cascade,
  lines json not null check (json_typeof(lines) = 'array')
);

-- Drafts quoted before this migration keep their lines in deposit_quote_items, which the commit
-- still reads (an instance of the previous version may write there during a rolling upgrade).
