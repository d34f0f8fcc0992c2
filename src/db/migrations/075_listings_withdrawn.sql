-- A completed deposit reversed on the platform late (offer.ts reversedAfterCompletion): its items
-- left the bot. Its live listings were delisted, but one reserved by a purchase in flight was left
-- to that purchase, and when the purchase failed, releaseListing put it back on sale: an item the
-- gateway no longer holds. withdrawn_at marks every listing of such a deposit, reserved or not; a
-- released listing that is withdrawn goes to 'delisted', not 'live'. Nullable without a default:
-- adding it rewrites nothing.
alter table listings add column withdrawn_at timestamptz;
