// Float, paint seed and phase from the platform's own item data on PLATFORM=steam: where the
// inventory carries asset properties (1: paint seed, 2: float, 7: finish catalog → phase) a
// deposited item takes them from there, with no inspect link at all; where it does not, its
// inspect link is the source (a self-contained CS2 link decodes to both; the 2026 link's
// %propid:6% names the item certificate property). Stored with the deposit's items and carried to
// the item's listing at completion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCs2InspectLink } from '../../src/domain/inspect-link.js';
import { sql } from 'kysely';
import { startSteamMerchantWorld, type SteamWorld } from './steam-helpers.js';

let w: SteamWorld;
let key: string;
const TOKEN = 'tok12345';
const PARTNER = 43_000_001;
const DOPPLER = '★ Karambit | Doppler (Factory New)';
const REDLINE = 'AK-47 | Redline (Minimal Wear)';
const certificate = (paintwear: number, paintseed: number) => buildCs2InspectLink({ defindex: 7, paintindex: 282, paintseed, paintwear }).split('%20')[1];

beforeAll(async () => {
  ({ w, key } = await startSteamMerchantWorld({ bots: 1, topUp: 1000 }));
  w.fake.addUser({
    partner: PARTNER, token: TOKEN, items: [
      // Asset properties only: no inspect link anywhere.
      { assetid: '6300000001', classid: '71', name: DOPPLER, properties: [
        { propertyid: 1, int_value: '661', name: 'Pattern Template' },
        { propertyid: 2, float_value: '0.0123456', name: 'Wear Rating' },
        { propertyid: 7, int_value: '415', name: 'Finish Catalog' },
      ] },
      // No asset properties: a self-contained inspect link in the class's actions.
      { assetid: '6300000002', classid: '72', name: REDLINE, actions: [{ name: 'Inspect in Game...', link: `steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20${certificate(0.25, 306)}` }] },
      // The 2026 link: its payload is the item certificate property (6) it names.
      { assetid: '6300000003', classid: '73', name: REDLINE, properties: [{ propertyid: 6, string_value: certificate(0.125, 42), name: 'Item Certificate' }],
        actions: [{ name: 'Inspect in Game...', link: 'steam://run/730//+csgo_econ_action_preview%20%propid:6%' }] },
      // Neither: no float, no seed.
      { assetid: '6300000004', classid: '74', name: REDLINE },
    ],
  });
});
afterAll(async () => w?.stop());

describe('an item\'s wear from the platform', () => {
  it('the deposit\'s items carry float, paint seed and phase from the asset properties, else from the inspect link; its listings too', async () => {
    const inv = await w.gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner: PARTNER, token: TOKEN });
    expect(inv.status, JSON.stringify(inv.body)).toBe(200);
    const ids = ['6300000001', '6300000002', '6300000003', '6300000004'];
    const dep = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: 'wear-1', game: 'csgo', partner: PARTNER, token: TOKEN, asset_ids: ids });
    expect(dep.body.data.status, JSON.stringify(dep.body)).toBe('active');
    const rows = await w.gw.ctx.db.selectFrom('deposit_items').select(['asset_id', 'float', 'paint_seed', 'phase']).where('deposit_id', '=', dep.body.data.id).orderBy('asset_id').execute();
    expect(rows).toEqual([
      { asset_id: '6300000001', float: 0.0123456, paint_seed: 661, phase: 'Ruby' },
      { asset_id: '6300000002', float: 0.25, paint_seed: 306, phase: null },
      { asset_id: '6300000003', float: 0.125, paint_seed: 42, phase: null },
      { asset_id: '6300000004', float: null, paint_seed: null, phase: null },
    ]);
    // The platform was asked nothing beyond the flow's budget (no inspect service, no second read).
    expect(w.fake.requests.filter((r) => r.path.includes('/inventory/')).length).toBe(1);
    // At completion the listings carry them (the catalogue's extended fields).
    await w.gw.ctx.db.updateTable('deposits').set({ status: 'completed' }).where('id', '=', dep.body.data.id).execute();
    await sql`select catalogue_add_deposit_items(${[dep.body.data.id]}::bigint[])`.execute(w.gw.ctx.db);
    const listings = await w.gw.ctx.db.selectFrom('listings').select(['source_ref', 'float', 'paint_seed', 'phase']).where('source_ref', 'like', `deposit:${dep.body.data.id}:%`).orderBy('source_ref').execute();
    expect(listings).toEqual(rows.map((r) => ({ source_ref: `deposit:${dep.body.data.id}:${r.asset_id}`, float: r.float, paint_seed: r.paint_seed, phase: r.phase })));
  });
});
