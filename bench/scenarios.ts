// Feature scenarios for bench/run.ts: the catalogue and purchase paths a merchant calls most.
import type { AppContext } from '../src/context.js';
import { request, type Scenario } from './run.js';

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
  return [
    { name: 'GET purchase/available page (full, 1/16)', run: async (i) => void (await request(`${api}/purchase/available?game=csgo&full=true&page=${(i % 16) + 1}`, { headers: key })) },
    { name: 'GET purchase/available grouped (whole)', run: async () => void (await request(`${api}/purchase/available?game=csgo`, { headers: key })) },
    {
      name: 'POST purchase by name (reserve + debit txn)',
      run: async (i) =>
        void (await request(`${api}/purchase`, {
          method: 'POST',
          headers: key,
          body: { partner: partner++, token: 'abcdefgh', game: 'tf2', name: 'Mann Co. Supply Crate Key', merchant_tx_id: `bench-${runId}-${i}` },
        })),
    },
    { name: 'GET purchase/status', run: async () => void (await request(`${api}/purchase/status?merchant_tx_id=bench-${runId}-1`, { headers: key })) },
    {
      name: 'POST inventory (sandbox, priced snapshot)',
      run: async (i) => void (await request(`${api}/inventory`, { method: 'POST', headers: key, body: { game: 'csgo', partner: 20_000_000 + (i % 500), token: 'abcdefgh' } })),
    },
  ];
}
