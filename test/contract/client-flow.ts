// A merchant's integration written against the client generated from the served OpenAPI document
// (openapi-typescript → ./generated/api.d.ts, made by client.test.ts, not committed) and
// openapi-fetch. client.test.ts type-checks this file against the generated types, then runs it.
// It is left out of the project's type-check (tsconfig exclude): the types exist only during the test.
import createClient from 'openapi-fetch';
import type { paths } from './generated/api.js';

function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what}: no data`);
  return value;
}

export async function runMerchantFlow(baseUrl: string, apiKey: string) {
  const api = createClient<paths>({ baseUrl, headers: { 'X-Api-Key': apiKey } });
  const user = { game: 'csgo', partner: 12345678, token: 'abcdefgh' } as const;

  // Deposits: inventory → create-deposit → status.
  const inv = must((await api.POST('/api/v1/merchant/inventory', { body: user })).data, 'inventory').data;
  const first = inv.items[0];
  const price: number = first.price;
  const created = await api.POST('/api/v1/merchant/create-deposit', {
    body: { ...user, merchant_tx_id: 'client-dep-1', asset_ids: [first.id] },
  });
  const deposit = must(created.data, 'create-deposit').data;
  const status = must((await api.GET('/api/v1/merchant/deposit/status', { params: { query: { id: deposit.id } } })).data, 'deposit status').data;
  const duplicate = await api.POST('/api/v1/merchant/create-deposit', {
    body: { ...user, merchant_tx_id: 'client-dep-1', asset_ids: [first.id] },
  });
  const duplicateCode: string | undefined = duplicate.error?.data?.[0]?.code;

  // Catalogue: a page with its ETag, then the same page unchanged (304).
  const page = await api.GET('/api/v1/merchant/purchase/available', { params: { query: { game: 'csgo', full: 'true', page: '1' } } });
  const pageData = must(page.data, 'catalogue page').data;
  if (!('page' in pageData)) throw new Error('a page was asked for, the whole catalogue came');
  const etag = page.response.headers.get('etag') ?? '';
  const again = await api.GET('/api/v1/merchant/purchase/available', {
    params: { query: { game: 'csgo', full: 'true', page: '1' }, header: { 'If-None-Match': etag } },
  });
  const listing = pageData.items[0];
  const listingId = 'id' in listing ? listing.id : undefined;

  // Purchases: purchase → status → history.
  const bought = must(
    (await api.POST('/api/v1/merchant/purchase', { body: { ...user, asset_id: must(listingId, 'listing id'), merchant_tx_id: 'client-buy-1', max_price: 100000 } })).data,
    'purchase',
  ).data;
  const purchaseStatus = must((await api.GET('/api/v1/merchant/purchase/status', { params: { query: { merchant_tx_id: 'client-buy-1' } } })).data, 'purchase status').data;
  const history = must((await api.GET('/api/v1/merchant/purchase', { params: { query: { search: 'client-buy-1' } } })).data, 'history').data;
  const balance = must((await api.GET('/api/v1/merchant/balance')).data, 'balance').data;

  return {
    inventory: { count: inv.items.length, price, maxItems: inv.max_items },
    deposit: { id: deposit.id, status: deposit.status, statusId: status.id, statusState: status.status, duplicateStatus: duplicate.response.status, duplicateCode },
    catalogue: { pageStatus: page.response.status, etag, notModifiedStatus: again.response.status, page: pageData.page, totalPages: pageData.total_pages, count: pageData.count },
    purchase: { id: bought.id, status: bought.status, statusId: purchaseStatus.id, historyIds: history.data.map((p) => p.id), historyTotal: history.total },
    balance: { available: balance.available, hold: balance.hold, total: balance.total },
  };
}
