// Doppler-type phases from the platform's own data (issue 20, point 5): the paint index ("Finish
// Catalog") through the one table, the text as fallback, and the price of an item in a phase.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { PHASE_BY_PAINT_INDEX, finishOf, paintIndexOf, phaseOf, phasesOf } from '../../src/domain/phases.js';
import { platformItemsOf } from '../../src/platform/steam/steam-mapping.js';
import { createPricingService } from '../../src/modules/pricing/pricing-service.js';
import { loadConfig } from '../../src/config.js';
import { sandboxInventory } from '../../src/platform/sandbox/inventory.js';

const DOPPLER = '★ Karambit | Doppler (Factory New)';
const GAMMA = '★ Karambit | Gamma Doppler (Factory New)';
const GLOCK = 'Glock-18 | Gamma Doppler (Factory New)';

describe('the paint index table', () => {
  it.each([
    [DOPPLER, 415, 'Ruby'], [DOPPLER, 416, 'Sapphire'], [DOPPLER, 417, 'Black Pearl'],
    [DOPPLER, 418, 'Phase 1'], [DOPPLER, 421, 'Phase 4'],
    [DOPPLER, 617, 'Black Pearl'], [DOPPLER, 618, 'Phase 2'], [DOPPLER, 619, 'Sapphire'],
    [DOPPLER, 852, 'Phase 1'], [DOPPLER, 855, 'Phase 4'],
    [GAMMA, 568, 'Emerald'], [GAMMA, 569, 'Phase 1'], [GAMMA, 572, 'Phase 4'],
    [GLOCK, 1119, 'Emerald'], [GLOCK, 1123, 'Phase 4'],
  ])('%s with paint index %i → %s', (name, paintIndex, phase) => {
    expect(phaseOf({ marketHashName: name, paintIndex })).toBe(phase);
  });

  it.each([
    [DOPPLER, 414], [DOPPLER, 422], [DOPPLER, 616], [DOPPLER, 620], [DOPPLER, 851], [DOPPLER, 856],
    [GAMMA, 567], [GAMMA, 573], [GLOCK, 1118], [GLOCK, 1124],
    // Another finish's index is not this finish's phase.
    [DOPPLER, 568], [GAMMA, 415],
    ['AWP | Graphite (Factory New)', 415],
  ])('%s with paint index %i → no phase', (name, paintIndex) => {
    expect(phaseOf({ marketHashName: name, paintIndex })).toBeUndefined();
  });

  it('covers every phase of both finishes, each with an index the sandbox can describe it by', () => {
    expect(phasesOf('Doppler').sort()).toEqual(['Black Pearl', 'Phase 1', 'Phase 2', 'Phase 3', 'Phase 4', 'Ruby', 'Sapphire']);
    expect(phasesOf('Gamma Doppler').sort()).toEqual(['Emerald', 'Phase 1', 'Phase 2', 'Phase 3', 'Phase 4']);
    expect(PHASE_BY_PAINT_INDEX.size).toBe(24);
    for (const phase of phasesOf('Doppler')) expect(phaseOf({ marketHashName: DOPPLER, paintIndex: paintIndexOf(DOPPLER, phase) })).toBe(phase);
    for (const phase of phasesOf('Gamma Doppler')) expect(phaseOf({ marketHashName: GAMMA, paintIndex: paintIndexOf(GAMMA, phase) })).toBe(phase);
  });

  it('finishes by name: Doppler, Gamma Doppler, nothing else', () => {
    expect(finishOf('★ StatTrak™ Butterfly Knife | Doppler (Minimal Wear)')).toBe('Doppler');
    expect(finishOf(GLOCK)).toBe('Gamma Doppler');
    expect(finishOf('★ Karambit | Marble Fade (Factory New)')).toBeUndefined();
    expect(finishOf('Sticker | Doppler')).toBeUndefined();
  });
});

describe('text fallback', () => {
  it('a phase of the finish named in a tag or description line, as a whole word', () => {
    expect(phaseOf({ marketHashName: DOPPLER, texts: ['Exterior: Factory New', 'Phase 2'] })).toBe('Phase 2');
    expect(phaseOf({ marketHashName: DOPPLER, texts: ['Phase 21'] })).toBeUndefined();
    expect(phaseOf({ marketHashName: GAMMA, texts: ['Emerald'] })).toBe('Emerald');
    // Ruby is no Gamma Doppler phase; Emerald no Doppler one.
    expect(phaseOf({ marketHashName: GAMMA, texts: ['Ruby'] })).toBeUndefined();
    expect(phaseOf({ marketHashName: DOPPLER, texts: ['Emerald'] })).toBeUndefined();
  });
  it('the paint index wins over the text; an unknown index falls back to it', () => {
    expect(phaseOf({ marketHashName: DOPPLER, paintIndex: 415, texts: ['Phase 2'] })).toBe('Ruby');
    expect(phaseOf({ marketHashName: DOPPLER, paintIndex: 422, texts: ['Phase 2'] })).toBe('Phase 2');
  });
});

describe('Steam inventory pages (asset_properties, descriptions)', () => {
  it('reads Finish Catalog (property 7) and the description text as Steam sends them', () => {
    const page = JSON.parse(fs.readFileSync(new URL('../steam/fixtures/inventory-phases.json', import.meta.url), 'utf8'));
    // As steamcommunity joins them: assets with their class description, asset_properties by asset id.
    const props = Object.fromEntries(page.asset_properties.map((p: any) => [p.assetid, p.asset_properties]));
    const items = page.assets.map((a: any) => {
      const d = page.descriptions.find((x: any) => x.classid === a.classid);
      return { ...a, ...d, tradable: d.tradable === 1, ...(props[a.assetid] ? { asset_properties: props[a.assetid] } : {}) };
    });
    const got = platformItemsOf(items).map((i) => [i.assetId, i.phase ?? null, i.paintIndex ?? null]);
    expect(got).toEqual([
      ['30000000101', 'Ruby', 415],
      ['30000000102', 'Phase 4', 421],
      ['30000000103', null, 422],
      ['30000000104', 'Phase 4', 855],
      ['30000000105', 'Emerald', 1119],
      ['30000000106', 'Phase 3', null],
      ['30000000107', null, 415],
    ]);
    expect(platformItemsOf(items)[0]).toMatchObject({ float: 0.012035196647048, paintSeed: 412 });
  });
});

describe('the price of an item in a phase', () => {
  const pricing = createPricingService({ config: loadConfig({}), log: pino({ level: 'silent' }) });
  const merchant = { deposit_multiplier: 1 } as never;

  it('a Ruby at the Ruby price; a phase-priced name without a known phase is not priced at the plain price', async () => {
    await pricing.reload();
    const plain = pricing.entry('csgo', DOPPLER)!.price;
    const ruby = pricing.entry('csgo', DOPPLER, 'Ruby')!.price;
    expect(ruby).not.toBe(plain);
    expect(pricing.quoteItem(merchant, 'csgo', { marketHashName: DOPPLER, phase: 'Ruby' })?.price).toBe(ruby);
    expect(pricing.quoteItem(merchant, 'csgo', { marketHashName: DOPPLER, phase: 'Phase 1' })?.price).toBe(pricing.entry('csgo', DOPPLER, 'Phase 1')!.price);
    expect(pricing.quoteItem(merchant, 'csgo', { marketHashName: DOPPLER })).toBeUndefined();
    expect(pricing.quoteItem(merchant, 'csgo', { marketHashName: DOPPLER, phase: 'Emerald' })).toBeUndefined();
    // Names not priced per phase keep their one price.
    expect(pricing.quoteItem(merchant, 'csgo', { marketHashName: 'AK-47 | Redline (Field-Tested)' })?.price).toBe(pricing.entry('csgo', 'AK-47 | Redline (Field-Tested)')!.price);
  });

  it('sandbox inventories describe phased items by paint index, and their phase is the one the table reads', async () => {
    await pricing.reload();
    let phased = 0;
    for (let partner = 10_000_000; partner < 10_000_400; partner++) {
      for (const it of sandboxInventory(partner, 'csgo', pricing.sandboxItems('csgo'))) {
        if (!finishOf(it.marketHashName)) continue;
        phased++;
        expect(it.paintIndex).toBeDefined();
        expect(it.phase).toBeDefined();
        expect(it.phase).toBe(phaseOf({ marketHashName: it.marketHashName, paintIndex: it.paintIndex }));
      }
    }
    expect(phased).toBeGreaterThan(0);
  });
});
