-- Issue 26 point 4: a merchant that keeps a copy of the catalogue polls its pages with
-- If-None-Match, and nearly every answer is a 304. Logged one row each, those polls were the
-- catalogue 304's largest cost (≈ 14 µs of PostgreSQL per answer: a heap tuple and four index
-- entries, bench/RESULTS.md § "Stop 37") and most of the table's growth. Identical 304 answers
-- noted within one flush of the recorder (≈ 1 s) are now one row with their count.
-- A constant default is stored in the catalogue: adding the column rewrites nothing.
alter table request_logs add column repeats integer not null default 1;
