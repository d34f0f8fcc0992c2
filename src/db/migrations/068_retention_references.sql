-- Retention of price bases (issue 26): a superseded basis goes only when nothing names it — no
-- deposit item credited at it, no stored quote whose version resolves to it — so every credit stays
-- explained. These indexes let the pruning job ask that per basis without reading the tables whole.
create index deposit_items_price_basis_idx on deposit_items (price_basis_id) where price_basis_id is not null;
create index deposit_quotes_price_version_idx on deposit_quotes (price_version) where price_version is not null;
