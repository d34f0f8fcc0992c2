// Deterministic sandbox inventories: the same (partner, game) always yields the same assets,
// drawn from the sandbox price book, plus a couple of items the book does not price.
import { GAMES, type Game } from '../../domain/games.js';
import type { PlatformItem } from '../port.js';
import { EMPTY_INVENTORY_PARTNER } from './users.js';

/** FNV-1a: a stable 32-bit seed from a string. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: tiny seeded PRNG, good enough to pick items. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const UNPRICED_PREFIX = 'Sandbox Unpriced Item';
export const MAX_SANDBOX_ITEMS = 99;

/**
 * The user's items for a game. `names` is the price book's names (and phases) for that game (any order;
 * sorted here so a reload in another order does not change inventories).
 */
export function sandboxInventory(partner: number, game: Game, names: readonly { name: string; phase?: string }[]): PlatformItem[] {
  if (partner === EMPTY_INVENTORY_PARTNER) return [];
  const key = (n: { name: string; phase?: string }) => `${n.name}\u0000${n.phase ?? ''}`;
  const sorted = [...names].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const rnd = prng(hash32(`${partner}:${game}`));
  const count = sorted.length === 0 ? 0 : 8 + Math.floor(rnd() * 33); // 8..40 priced picks
  const gameIdx = GAMES.indexOf(game);
  // Asset IDs are unique per (partner, game, position) and look like platform asset IDs.
  const assetId = (i: number) => (20_000_000_000n + BigInt(partner) * 400n + BigInt(gameIdx) * 100n + BigInt(i)).toString();
  const items: PlatformItem[] = [];
  for (let i = 0; i < count; i++) {
    const pick = sorted[Math.floor(rnd() * sorted.length)];
    items.push({ assetId: assetId(i), marketHashName: pick.name, ...(pick.phase ? { phase: pick.phase } : {}) });
  }
  // Two items no price book knows: inventory and preview must omit them.
  for (let k = 1; k <= 2; k++) items.push({ assetId: assetId(count + k - 1), marketHashName: `${UNPRICED_PREFIX} ${k}` });
  return items;
}
