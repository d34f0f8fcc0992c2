-- Issue 12 (get-prices with 2 000 names, p99 < 30 ms): a quote's lines stored packed, 24 bytes per
-- name (src/modules/deposits/quote-pack.ts: an 8-byte key of the name, the price and the base
-- price), uncompressed. The JSON lines of 014 cost PostgreSQL ≈ 2.2 ms of CPU per quote (parse,
-- pglz over ≈ 110 KB, 60 TOAST chunks); the packed form ≈ 0.5 ms. New quotes fill `packed`; rows
-- written before (or by an instance of the previous version) keep `lines`, which the commit still
-- reads, as it still reads deposit_quote_items (before 014).
alter table deposit_quotes alter column lines drop not null;
alter table deposit_quotes add column packed bytea;
-- Incompressible bytes (hashes, prices): no pglz attempt, stored out of line as they are.
alter table deposit_quotes alter column packed set storage external;
alter table deposit_quotes add constraint deposit_quotes_one_form check ((lines is null) <> (packed is null));
alter table deposit_quotes add constraint deposit_quotes_packed_lines check (octet_length(packed) > 0 and octet_length(packed) % 24 = 0);
