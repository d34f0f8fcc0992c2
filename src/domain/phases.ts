// Doppler-type phases: the one table and the one decision of which phase an item is priced by.
// Steam describes a CS2 item's finish by its paint index (inventory asset property 7, "Finish
// Catalog"; the inspect data's paintindex): each Doppler and Gamma Doppler phase is its own paint
// kit, so the index names the phase exactly. The item's text (a "Phase 2" tag or description) is
// the fallback for items whose properties do not come with the inventory. A price book prices a
// phase as "<market hash name> - <phase>" (pricebook-parse.ts). Pure: no I/O.

export type Finish = 'Doppler' | 'Gamma Doppler';

/**
 * Paint index → finish and phase, for every knife and weapon finish priced by phase (the public
 * CS2 item schema's paint kits): the first Doppler set (most knives), the second one (Butterfly
 * Knife, Shadow Daggers and later knives), the Talon Knife's, Gamma Doppler on knives and on the
 * Glock-18.
 */
export const PHASE_BY_PAINT_INDEX: ReadonlyMap<number, { finish: Finish; phase: string }> = new Map([
  [415, { finish: 'Doppler', phase: 'Ruby' }],
  [416, { finish: 'Doppler', phase: 'Sapphire' }],
  [417, { finish: 'Doppler', phase: 'Black Pearl' }],
  [418, { finish: 'Doppler', phase: 'Phase 1' }],
  [419, { finish: 'Doppler', phase: 'Phase 2' }],
  [420, { finish: 'Doppler', phase: 'Phase 3' }],
  [421, { finish: 'Doppler', phase: 'Phase 4' }],
  [617, { finish: 'Doppler', phase: 'Black Pearl' }],
  [618, { finish: 'Doppler', phase: 'Phase 2' }],
  [619, { finish: 'Doppler', phase: 'Sapphire' }],
  [852, { finish: 'Doppler', phase: 'Phase 1' }],
  [853, { finish: 'Doppler', phase: 'Phase 2' }],
  [854, { finish: 'Doppler', phase: 'Phase 3' }],
  [855, { finish: 'Doppler', phase: 'Phase 4' }],
  [568, { finish: 'Gamma Doppler', phase: 'Emerald' }],
  [569, { finish: 'Gamma Doppler', phase: 'Phase 1' }],
  [570, { finish: 'Gamma Doppler', phase: 'Phase 2' }],
  [571, { finish: 'Gamma Doppler', phase: 'Phase 3' }],
  [572, { finish: 'Gamma Doppler', phase: 'Phase 4' }],
  [1119, { finish: 'Gamma Doppler', phase: 'Emerald' }],
  [1120, { finish: 'Gamma Doppler', phase: 'Phase 1' }],
  [1121, { finish: 'Gamma Doppler', phase: 'Phase 2' }],
  [1122, { finish: 'Gamma Doppler', phase: 'Phase 3' }],
  [1123, { finish: 'Gamma Doppler', phase: 'Phase 4' }],
] as const);

/** Steam's asset property id of the finish's paint index ("Finish Catalog"). */
export const FINISH_CATALOG_PROPERTY = 7;

/** The phases a finish comes in (from the table). */
export function phasesOf(finish: Finish): string[] {
  return [...new Set([...PHASE_BY_PAINT_INDEX.values()].filter((v) => v.finish === finish).map((v) => v.phase))];
}

// A phase named as a whole word in an item's text ("Phase 1" is not "Phase 10").
const PHASE_TEXT: Record<Finish, { phase: string; re: RegExp }[]> = {
  Doppler: phasesOf('Doppler').map((phase) => ({ phase, re: new RegExp(`(^|[^A-Za-z0-9])${phase}([^A-Za-z0-9]|$)`) })),
  'Gamma Doppler': phasesOf('Gamma Doppler').map((phase) => ({ phase, re: new RegExp(`(^|[^A-Za-z0-9])${phase}([^A-Za-z0-9]|$)`) })),
};

/** The phased finish of a market hash name ("★ Karambit | Gamma Doppler (Factory New)" → Gamma Doppler), if any. */
export function finishOf(marketHashName: string): Finish | undefined {
  if (/\| Gamma Doppler \(/.test(marketHashName)) return 'Gamma Doppler';
  if (/\| Doppler \(/.test(marketHashName)) return 'Doppler';
  return undefined;
}

/**
 * The phase an item is priced by: its paint index when the table knows it for the item's finish,
 * else a phase of that finish named in its text (tags, descriptions); undefined for an item that is
 * not phased, or whose phase the platform did not tell.
 */
export function phaseOf(item: { marketHashName: string; paintIndex?: number; texts?: readonly string[] }): string | undefined {
  const finish = finishOf(item.marketHashName);
  if (!finish) return undefined;
  const byIndex = item.paintIndex === undefined ? undefined : PHASE_BY_PAINT_INDEX.get(item.paintIndex);
  if (byIndex && byIndex.finish === finish) return byIndex.phase;
  for (const text of item.texts ?? []) {
    const hit = PHASE_TEXT[finish].find((p) => p.re.test(text));
    if (hit) return hit.phase;
  }
  return undefined;
}

/** A paint index of this finish and phase (the sandbox describes its items as the platform does). */
export function paintIndexOf(marketHashName: string, phase: string): number | undefined {
  const finish = finishOf(marketHashName);
  for (const [index, v] of PHASE_BY_PAINT_INDEX) if (v.finish === finish && v.phase === phase) return index;
  return undefined;
}

/** The price book name of an item in a phase: "<market hash name> - <phase>". */
export function phasedName(marketHashName: string, phase: string): string {
  return `${marketHashName} - ${phase}`;
}

/** The market hash name of a phased price book name ("<name> - <phase>" → name), or undefined when it is not one. */
export function unphasedName(priceName: string, phase: string | null | undefined): string | undefined {
  if (!phase) return undefined;
  const suffix = ` - ${phase}`;
  return priceName.endsWith(suffix) ? priceName.slice(0, -suffix.length) : undefined;
}
