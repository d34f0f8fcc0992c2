-- applyRate of src/domain/money.ts for a price (base >= 0): Math.round(base * markup + 1e-9) in
-- IEEE doubles, half up (test/purchases/round-trips.test.ts compares it with salePrice).
create or replace function sale_price(base bigint, markup float8) returns bigint language plpgsql immutable as $$
declare
  x float8 := base::float8 * markup + 1e-9::float8;
begin
  return floor(x)::bigint + case when x - floor(x) >= 0.5::float8 then 1 else 0 end;
end $$;
