-- A balance stays within the amounts a JSON number prints exactly: amounts leave as mills / 1000 in
-- a double, which prints every amount of 3 decimals exactly only below 2^43 USD (src/domain/money.ts
-- MAX_AMOUNT_MILLS). Above it 9 000 000 000 301.501 USD printed as …301.502. The limit of migration
-- 035 (2^53 − 1 mills, what a JavaScript number reads exactly) becomes 2^43 USD = 8 796 093 022 208 000
-- mills; a movement past it is refused by this constraint (a top-up answers 400 naming the limit).
-- NOT VALID: a balance already past it (none is expected) keeps being read; any change of that row
-- must bring it within the limit.
alter table balances drop constraint balances_within_safe_range;
alter table balances add constraint balances_within_exact_range
  check (available + hold <= 8796093022208000) not valid;
