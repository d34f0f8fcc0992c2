-- Whether an update of a listing is visible in the catalogue (and so versions its page and is an
-- event): it was or is live, and its status or any shown field changed. Inlined by the planner.
create or replace function catalogue_visible_change(o listings, n listings) returns boolean
language sql immutable as $$
  select (o.status = 'live' or n.status = 'live')
    and (o.status is distinct from n.status
         or (o.name, o.base_price, o.image_url, o.exterior, o.rarity, o.rarity_color, o.class_id, o.instance_id,
             o.asset_id, o.float, o.paint_seed, o.inspect_url, o.phase)
            is distinct from
            (n.name, n.base_price, n.image_url, n.exterior, n.rarity, n.rarity_color, n.class_id, n.instance_id,
             n.asset_id, n.float, n.paint_seed, n.inspect_url, n.phase))
$$;
