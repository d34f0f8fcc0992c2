-- The operator console's lookup (issue 24): one search box finds any deposit or purchase, of any
-- merchant, by its merchant_tx_id, its trade offer id or an item's asset id (the id is the primary
-- key). The unique (merchant_id, merchant_tx_id) keys cannot answer a search without the merchant,
-- so each of these columns gets an index of its own, partial on the rows that have a value.
create index deposits_merchant_tx_id_idx on deposits (merchant_tx_id) where merchant_tx_id is not null;
create index deposits_trade_offer_id_idx on deposits (trade_offer_id) where trade_offer_id is not null;
create index deposit_items_asset_id_idx on deposit_items (asset_id) where asset_id is not null;
create index purchases_merchant_tx_id_idx on purchases (merchant_tx_id) where merchant_tx_id is not null;
create index purchases_trade_offer_id_idx on purchases (trade_offer_id) where trade_offer_id is not null;
create index purchases_item_asset_id_idx on purchases (item_asset_id) where item_asset_id is not null;
