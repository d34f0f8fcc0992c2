// Doppler phases on PLATFORM=steam (issue 20, point 5): the stand-in platform describes the
// items as Steam does (asset property 7 "Finish Catalog", description lines), and the merchant's
// inventory prices each by its phase — a Ruby as a Ruby, never at the plain Doppler price.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers.js';
import { offline, startSteamWorld, type SteamWorld } from './steam-helpers.js';

let w: SteamWorld;
let key: string;
const TOKEN = 'tok12345';
const PARTNER = 41_000_001;
const DOPPLER = '★ Karambit | Doppler (Factory New)';
const finish = (index: number) => [{ propertyid: 7, int_value: String(index), name: 'Finish Catalog' }];

beforeAll(async () => {
  offline();
  w = await startSteamWorld({ bots: 1 });
  await w.platform.leaseTick();
  await eventually(async () => w.platform.driverOf(w.bots[0].id)?.signedIn, 10_000);
  key = (await w.gw.createMerchant()).api_key;
  w.fake.addUser({
    partner: PARTNER, token: TOKEN, items: [
      { assetid: '6100000001', classid: '61', name: DOPPLER, properties: finish(415) },
      { assetid: '6100000002', classid: '62', name: DOPPLER, properties: finish(418) },
      { assetid: '6100000003', classid: '63', name: DOPPLER, properties: finish(421) },
      { assetid: '6100000004', classid: '64', name: DOPPLER, properties: finish(422) },
      { assetid: '6100000005', classid: '65', name: DOPPLER, lines: ['Exterior: Factory New', 'Phase 2'] },
      { assetid: '6100000006', classid: '66', name: DOPPLER, lines: ['Exterior: Factory New'] },
    ],
  });
});
afterAll(async () => w?.stop());

describe('inventory prices by the platform\'s finish data', () => {
  it('paint index 415 → Ruby at 9000, 418 → Phase 1, 421 → Phase 4; text "Phase 2" as fallback; 422 and no phase at all → not offered', async () => {
    const res = await w.gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner: PARTNER, token: TOKEN });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byId = Object.fromEntries(res.body.data.items.map((i: any) => [i.id, i]));
    const book = (phase: string) => w.gw.ctx.pricing.entry('csgo', DOPPLER, phase)!.price / 1000;
    expect(byId['6100000001']).toMatchObject({ phase: 'Ruby', price: 9000 });
    expect(byId['6100000002']).toMatchObject({ phase: 'Phase 1', price: book('Phase 1') });
    expect(byId['6100000003']).toMatchObject({ phase: 'Phase 4', price: book('Phase 4') });
    expect(byId['6100000005']).toMatchObject({ phase: 'Phase 2', price: book('Phase 2') });
    // One past the table, and an item without any phase data: never the plain Doppler price.
    expect(byId['6100000004']).toBeUndefined();
    expect(byId['6100000006']).toBeUndefined();
    expect(Object.keys(byId).sort()).toEqual(['6100000001', '6100000002', '6100000003', '6100000005']);
  });

  it('a deposit of the Ruby is credited at the Ruby price and offered as the Ruby', async () => {
    const dep = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: 'ruby-1', game: 'csgo', partner: PARTNER, token: TOKEN, asset_ids: ['6100000001'] });
    expect(dep.status, JSON.stringify(dep.body)).toBe(200);
    expect(dep.body.data.status).toBe('active');
    const row = await w.gw.ctx.db.selectFrom('deposit_items').select(['price', 'phase']).where('deposit_id', '=', dep.body.data.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ phase: 'Ruby' });
    expect(Number(row.price)).toBe(9_000_000);
  });
});
