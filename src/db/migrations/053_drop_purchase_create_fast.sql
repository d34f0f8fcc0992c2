-- purchase_create_fast (012, 017) has had no caller since purchase_create_batch (022); it was kept
-- for instances of the previous version, and no version with it was ever released. The SQL
-- functions now live in src/db/functions/*.sql (recreated at start after the migrations); this one
-- is not among them.
drop function if exists purchase_create_fast(bigint, text, text, bigint, text, text, text, text, timestamptz, text, text, float8, bigint, json);
