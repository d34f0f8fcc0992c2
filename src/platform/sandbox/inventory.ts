// Deterministic sandbox inventories: the same (partner, game) always yields the same assets,
// drawn from the sandbox price book, plus a couple of items the book does not price and one priced
// item on a trade cooldown (tradable: false). Assets that left the user in an accepted deposit
// offer are removed by the adapter (table sandbox_departed_assets), not here.
import { GAMES, type Game } from '../../domain/games.js';
import type { PlatformItem } from '../port.js';
import { EMPTY_INVENTORY_PARTNER } from './users.js';
import { fnv1a, mulberry32 } from '../../domain/prng.js';
import { PHASE_BY_PAINT_INDEX, finishOf, paintIndexOf, phaseOf } from '../../domain/phases.js';

export const UNPRICED_PREFIX = 'Sandbox Unpriced Item';
export const MAX_SANDBOX_ITEMS = 99;

/**
 * The user's items for a game. `names` is the price book's names (and phases) for that game (any order;
 * sorted here so a reload in another order does not change inventories).
 */
export function sandboxInventory(partner: number, game: Game, names: readonly { name: string; phase?: string }[]): PlatformItem[] {
  if (partner === EMPTY_INVENTORY_PARTNER) return [];
  const sorted = sortedNames(names);
  const rnd = mulberry32(fnv1a(`${partner}:${game}`));
  const count = sorted.length === 0 ? 0 : 8 + Math.floor(rnd() * 33); // 8..40 priced picks
  const gameIdx = GAMES.indexOf(game);
  // Asset IDs are unique per (partner, game, position) and look like platform asset IDs.
  const assetId = (i: number) => (20_000_000_000n + BigInt(partner) * 400n + BigInt(gameIdx) * 100n + BigInt(i)).toString();
  const items: PlatformItem[] = [];
  for (let i = 0; i < count; i++) {
    const pick = sorted[Math.floor(rnd() * sorted.length)];
    items.push({ assetId: assetId(i), marketHashName: pick.name, ...finish(pick, i) });
  }
  // Two items no price book knows: inventory and preview must omit them.
  for (let k = 1; k <= 2; k++) items.push({ assetId: assetId(count + k - 1), marketHashName: `${UNPRICED_PREFIX} ${k}` });
  // One priced item that cannot be traded now (drawn last, so the picks above stay as they were).
  if (count > 0) {
    const locked = sorted[Math.floor(rnd() * sorted.length)];
    items.push({ assetId: assetId(count + 2), marketHashName: locked.name, ...finish(locked, count + 2), tradable: false });
  }
  return items;
}

/**
 * A phased item is described as the platform describes it, by its finish's paint index, and its
 * phase is read from that as for any platform's item (domain/phases.ts). A book name priced only
 * plainly still stands for an item in some phase: one of its finish's, picked by position.
 */
function finish(pick: NameEntry, position: number): Pick<PlatformItem, 'phase' | 'paintIndex'> {
  const kind = finishOf(pick.name);
  if (!kind) return pick.phase ? { phase: pick.phase } : {};
  const indexes = [...PHASE_BY_PAINT_INDEX].filter(([, v]) => v.finish === kind).map(([k]) => k);
  const paintIndex = (pick.phase ? paintIndexOf(pick.name, pick.phase) : undefined) ?? indexes[position % indexes.length];
  const phase = phaseOf({ marketHashName: pick.name, paintIndex });
  return { paintIndex, ...(phase ? { phase } : {}) };
}

type NameEntry = { name: string; phase?: string };
// The book's name list is replaced on reload, so one sort per list object serves every request.
const sortedCache = new WeakMap<readonly NameEntry[], NameEntry[]>();

function sortedNames(names: readonly NameEntry[]): NameEntry[] {
  let sorted = sortedCache.get(names);
  if (!sorted) {
    const keyed = names.map((n) => ({ n, k: `${n.name}\u0000${n.phase ?? ''}` }));
    keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
    sorted = keyed.map((x) => x.n);
    sortedCache.set(names, sorted);
  }
  return sorted;
}
