// "Which sources priced it at what and when" for a deposit's items: the dashboard's
// deposit page and the console's show the same table.
import type { BasisReadingRow } from '../../../db/tables/pricing.js';
import { html, money, table, usd, when, type Html } from '../kit/html.js';

export interface ItemWithBasis {
  market_hash_name: string;
  asset_id: string | null;
  price: number;
  price_basis_id: number | null;
  reference: number | null;
  flags: string[] | null;
  readings: BasisReadingRow[] | null;
  computed_at: Date | string | null;
}

function readingsCell(rs: BasisReadingRow[] | null): Html {
  if (!rs || rs.length === 0) return html`—`;
  return html`<ul class="readings">${rs.map(
    (r) => html`<li data-source="${r.source}" data-status="${r.status}">${r.source}: ${usd(r.price)} as of ${when(r.as_of)}${r.liquidity !== undefined ? ` (${r.liquidity} listed/sold)` : ''} — ${r.status}</li>`,
  )}</ul>`;
}

export function depositItemsWithBasis(items: readonly ItemWithBasis[]): Html {
  return table(
    'Items of the deposit and what priced them',
    ['Item', 'Asset', 'Price', 'Reference', 'Sources', 'Flags', 'Priced at'],
    items.map((i) => [
      i.market_hash_name,
      i.asset_id,
      money(i.price),
      i.reference === null ? '—' : money(Number(i.reference)),
      readingsCell(i.readings),
      i.flags && i.flags.length ? i.flags.join(', ') : '—',
      i.computed_at ? when(i.computed_at) : '—',
    ]),
    'No items.',
  );
}
