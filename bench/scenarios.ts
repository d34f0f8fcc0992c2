// Feature scenarios for bench/run.ts: the catalogue and purchase paths a merchant calls most.
import type { AppContext } from '../src/context.js';
import { request, requestJson, type Scenario } from './run.js';
import { GAMES } from '../src/domain/games.js';

export interface BenchEnv {
  url: string;
  apiKey: string;
  merchantId: number;
  ctx: AppContext;
}

export async function scenarios(env: BenchEnv): Promise<Scenario[]> {
  const key = { 'x-api-key': env.apiKey };
  const api = `${env.url}/api/v1/merchant`;
  let partner = 10_000_000;
  const runId = Date.now().toString(36);
  const listings: { id: string; game: string }[] = [];
  for (const game of GAMES) {
    const res = await requestJson(`${api}/purchase/available?game=${game}&full=true`, { headers: key });
    for (const item of res.body.data.items as { id: string }[]) listings.push({ id: item.id, game });
  }
  return [
    { name: 'GET purchase/available page (full, 1/16)', run: async (i) => void (await request(`${api}/purchase/available?game=csgo&full=true&page=${(i % 16) + 1}`, { headers: key })) },
    { name: 'GET purchase/available grouped (whole)', run: async () => void (await request(`${api}/purchase/available?game=csgo`, { headers: key })) },
    {
      // Each request buys a different live listing, so every one reserves money and takes an item;
      // a purchase that did not reserve (failed at creation) counts as an error.
      name: 'POST purchase (reserve + debit txn)',
      run: async (i) => {
        const listing = listings[i];
        if (!listing) throw new Error('catalogue exhausted');
        const res = await requestJson(`${api}/purchase`, {
          method: 'POST',
          headers: key,
          body: { partner: partner++, token: 'abcdefgh', game: listing.game, asset_id: listing.id, merchant_tx_id: `bench-${runId}-${i}` },
        });
        if (res.body?.data?.status !== 'pending') throw new Error(`purchase ${res.body?.data?.status} ${res.body?.data?.fail_reason ?? ''}`);
      },
    },
    { name: 'GET purchase/status', run: async () => void (await request(`${api}/purchase/status?merchant_tx_id=bench-${runId}-1`, { headers: key })) },
    {
      name: 'POST inventory (sandbox, priced snapshot)',
      run: async (i) => void (await request(`${api}/inventory`, { method: 'POST', headers: key, body: { game: 'csgo', partner: 20_000_000 + (i % 500), token: 'abcdefgh' } })),
    },
  ];
}
