// A basis as stored and shown: each source's reading with what the rule made of it.
import type { BasisReadingRow } from '../../db/tables/pricing.js';
import type { Basis, Reading } from './reference-price.js';
import type { NewBasis } from './price-repo.js';

function statusOf(b: Basis, r: Reading): BasisReadingRow['status'] {
  if (b.stale.includes(r.source)) return 'stale';
  if (b.illiquid.includes(r.source)) return 'illiquid';
  if (b.outliers.includes(r.source)) return 'outlier';
  if (r.role === 'guard') return 'guard';
  return b.used.includes(r.source) ? 'used' : 'outlier';
}

export function basisRow(game: string, name: string, basis: Basis, readings: Iterable<Reading>): NewBasis {
  return {
    game,
    name,
    reference: basis.reference ?? null,
    deposit: basis.deposit ?? null,
    sale: basis.sale ?? null,
    flags: [...basis.flags],
    readings: [...readings].map((r) => ({
      source: r.source,
      role: r.role,
      price: r.price,
      as_of: new Date(r.asOf).toISOString(),
      ...(r.liquidity !== undefined ? { liquidity: r.liquidity } : {}),
      status: statusOf(basis, r),
    })),
  };
}
