// The sandbox catalogue seed (DESIGN 6/7): SANDBOX_CATALOGUE_SIZE listings generated
// deterministically from the sandbox price book. Listing i is a pure function of (i, book), so
// every instance and every restart computes the same rows and `ON CONFLICT DO NOTHING` makes the
// seed idempotent (a listing sold in the meantime stays sold).
import crypto from 'node:crypto';
import { GAMES, type Game } from '../../domain/games.js';
import { buildClassicInspectLink, buildCs2InspectLink, parseInspectLink } from '../../domain/inspect-link.js';
import type { ListingInput } from './catalogue-repo.js';
import type { BookEntry } from '../pricing/pricing-service.js';

/** A price book entry (base price in mills) as the pricing service hands it out. */
export type SeedBookEntry = BookEntry;

/** The bot that "owns" seeded csgo items in classic inspect links. */
const SEED_OWNER = '76561199000000101';

const WEAR_RANGES: Record<string, [number, number]> = {
  'Factory New': [0.0, 0.07],
  'Minimal Wear': [0.07, 0.15],
  'Field-Tested': [0.15, 0.38],
  'Well-Worn': [0.38, 0.45],
  'Battle-Scarred': [0.45, 1.0],
};

function digest(i: number, salt: string): Buffer {
  return crypto.createHash('sha256').update(`sandbox-seed:${salt}:${i}`).digest();
}

/**
 * Seed listing IDs come in the shapes real catalogues use: digits, 64-char hex, and some long
 * (192-char) hex IDs, so clients' handling of "opaque, can be a few hundred characters" is exercised.
 */
export function seedListingId(i: number): string {
  if (i % 2 === 0) return String(7_000_000_000_000 + i);
  const h = (salt: string) => digest(i, salt).toString('hex');
  return i % 10 === 3 ? h('a') + h('b') + h('c') : h('a');
}

/** Entries grouped by game in a stable order (by name), so the seed does not depend on file order. */
export function indexBook(entries: readonly SeedBookEntry[]): Map<Game, SeedBookEntry[]> {
  const byGame = new Map<Game, SeedBookEntry[]>(GAMES.map((g) => [g, []]));
  for (const e of entries) byGame.get(e.game)?.push(e);
  for (const list of byGame.values()) list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return byGame;
}

/** Image path relative to PUBLIC_URL (resolved when shown, so it follows the instance's address). */
export function sandboxImagePath(game: Game, name: string): string {
  return `/static/item-image/${game}/${encodeURIComponent(name)}.svg`;
}

/** Listing i of the seed, or undefined when the book has nothing for the chosen game. */
export function seedListing(i: number, book: Map<Game, SeedBookEntry[]>): ListingInput | undefined {
  // csgo is the bulk of real catalogues: half the seed; the other games share the rest.
  const d = digest(i, 'fields');
  const gameRoll = d[0] % 8;
  const game: Game = gameRoll < 4 ? 'csgo' : gameRoll < 6 ? 'rust' : gameRoll < 7 ? 'dota2' : 'tf2';
  const entries = book.get(game) ?? [];
  if (entries.length === 0) return undefined;
  const entry = entries[d.readUInt32BE(1) % entries.length];
  // ±20 % around the book price, in whole mills: listings of one name differ in price.
  const spread = 0.8 + (d.readUInt16BE(5) / 0xffff) * 0.4;
  const basePrice = Math.max(1, Math.round(entry.price * spread));
  const classId = 100_000_000 + (d.readUInt32BE(7) % 4_000_000_000);
  const instanceId = d[11] % 4 === 0 ? 0 : 188_530_000 + (d.readUInt16BE(12) % 10_000);
  const assetId = String(30_000_000_000n + BigInt(d.readUInt32BE(14)) * 4n + BigInt(i % 4));

  let inspectUrl: string | undefined;
  const wear = entry.exterior ? WEAR_RANGES[entry.exterior] : undefined;
  if (game === 'csgo' && wear) {
    // A painted csgo item: a third carry a classic link (asset id only), the rest a CS2
    // self-contained link (asset id, float and paint seed).
    if (i % 3 === 0) {
      inspectUrl = buildClassicInspectLink(SEED_OWNER, assetId, String(1_000_000_000_000_000n + BigInt(d.readUInt32BE(18))));
    } else {
      const [lo, hi] = wear;
      const paintwear = Math.fround(lo + ((d.readUInt32BE(22) % 1_000_000) / 1_000_000) * (hi - lo));
      inspectUrl = buildCs2InspectLink({
        defindex: 1 + (d[26] % 60),
        paintindex: 1 + (d.readUInt16BE(27) % 1000),
        paintseed: d.readUInt16BE(29) % 1001,
        paintwear: Math.min(Math.max(paintwear, 0), 1),
        itemid: assetId,
        rarity: 1 + (d[31] % 6),
      });
    }
  }
  const derived = parseInspectLink(inspectUrl);
  return {
    id: seedListingId(i),
    game,
    name: entry.name,
    base_price: basePrice,
    image_url: sandboxImagePath(game, entry.name),
    exterior: entry.exterior ?? null,
    rarity: entry.rarity ?? null,
    rarity_color: entry.rarity_color ?? null,
    class_id: classId,
    instance_id: instanceId,
    inspect_url: inspectUrl ?? null,
    asset_id: derived.asset_id ?? null,
    float: derived.float ?? null,
    paint_seed: derived.paint_seed ?? null,
    phase: entry.phase ?? null,
    source: 'seed',
    source_ref: `seed:${i}`,
  };
}
