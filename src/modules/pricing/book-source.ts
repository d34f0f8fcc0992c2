// Where the price book comes from: PRICE_BOOK (dir, file or URL) or the shipped sandbox book.
// TEMPORARY: reads the shipped JSON directly until src/modules/pricing/pricebook.ts lands.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GAMES, type Game } from '../../domain/games.js';

export interface BookEntry {
  game: Game;
  name: string;
  /** Base price in mills. */
  price: number;
  image_url?: string;
  exterior?: string;
  rarity?: string;
  rarity_color?: string;
  phase?: string;
}

const SANDBOX_DIR = fileURLToPath(new URL('../../../data/pricebook/', import.meta.url));

export async function loadBookEntries(source: string | undefined): Promise<BookEntry[]> {
  const dir = source ?? SANDBOX_DIR;
  const out: BookEntry[] = [];
  for (const game of GAMES) {
    let rows: { market_hash_name: string; price: number; image_url?: string; exterior?: string; rarity?: string; rarity_color?: string; phase?: string }[];
    try {
      rows = JSON.parse(await fs.readFile(path.join(dir, `${game}.json`), 'utf8'));
    } catch {
      continue;
    }
    for (const r of rows) {
      if (typeof r.market_hash_name !== 'string' || typeof r.price !== 'number' || !(r.price > 0)) continue;
      out.push({ game, name: r.market_hash_name, price: Math.round(r.price * 1000), image_url: r.image_url, exterior: r.exterior, rarity: r.rarity, rarity_color: r.rarity_color, phase: r.phase });
    }
  }
  return out;
}
