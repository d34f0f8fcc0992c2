// Public price sources besides the gateway's own book format. `PRICE_BOOK` names one with a
// prefix: `skinport:<url>` reads Skinport's public item list (GET https://api.skinport.com/v1/items
// ?app_id=730&currency=USD: an array of { market_hash_name, currency, suggested_price, min_price,
// median_price, … }). Several sources (one per game) are separated by whitespace.
import { isGame, type Game } from '../../domain/games.js';
import { PriceBookError, type PriceBookEntry } from './pricebook.js';

const APP_GAMES: Record<string, Game> = { '730': 'csgo', '252490': 'rust', '570': 'dota2', '440': 'tf2' };

export interface SkinportItem {
  market_hash_name?: unknown;
  currency?: unknown;
  suggested_price?: unknown;
  median_price?: unknown;
  min_price?: unknown;
  quantity?: unknown;
  updated_at?: unknown;
}

/** The game of a Skinport items URL: its app_id, or a `game` query parameter. */
export function skinportGame(url: string): Game {
  const u = new URL(url);
  const game = APP_GAMES[u.searchParams.get('app_id') ?? ''] ?? u.searchParams.get('game');
  if (!isGame(game)) throw new PriceBookError(`skinport source ${url}: app_id must be 730, 252490, 570 or 440`);
  return game;
}

const usd = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
const count = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);

export interface SkinportRow {
  name: string;
  /** mills */
  price: number;
  quantity?: number;
  /** Unix seconds */
  updatedAt?: number;
}

/**
 * Skinport items → priced rows. The price is suggested_price, else median_price, else min_price
 * (USD, rounded to mills); items with none are left out (unpriced), as are repeated names. A
 * non-USD list is refused: the gateway's money is USD.
 */
export function skinportRows(rows: unknown, part: { seen: Set<string>; offset: number } = { seen: new Set(), offset: 0 }): SkinportRow[] {
  if (!Array.isArray(rows)) throw new PriceBookError('skinport: expected an array of items');
  const out: SkinportRow[] = [];
  const { seen, offset } = part;
  rows.forEach((r: SkinportItem, at) => {
    const i = offset + at;
    if (typeof r?.market_hash_name !== 'string' || r.market_hash_name === '') throw new PriceBookError(`skinport: entry ${i}: market_hash_name missing`);
    if (r.currency !== 'USD') throw new PriceBookError(`skinport: entry ${i}: currency ${JSON.stringify(r.currency)}; ask for currency=USD`);
    const price = usd(r.suggested_price) ?? usd(r.median_price) ?? usd(r.min_price);
    if (price === undefined || seen.has(r.market_hash_name)) return;
    seen.add(r.market_hash_name);
    const row: SkinportRow = { name: r.market_hash_name, price: Math.round(price * 1000) };
    const q = count(r.quantity);
    if (q !== undefined) row.quantity = q;
    const t = usd(r.updated_at);
    if (t !== undefined) row.updatedAt = t;
    out.push(row);
  });
  return out;
}

/** Skinport items (JSON text) → book entries (PRICE_BOOK=skinport:…). */
export function skinportEntries(text: string, game: Game): PriceBookEntry[] {
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (err) {
    throw new PriceBookError(`skinport: not JSON (${(err as Error).message})`);
  }
  return skinportRows(rows).map((r) => ({ game, market_hash_name: r.name, price_mills: r.price }));
}

/** Whether a PRICE_BOOK value names prefixed sources (`skinport:…`) rather than a book. */
export function isSourceList(source: string): boolean {
  return /^skinport:/i.test(source.trim());
}

/** Loads every `skinport:<url>` of the list (whitespace-separated); any failure fails the load. */
export async function loadSourceList(source: string, fetchText: (url: string) => Promise<string> = defaultFetch): Promise<PriceBookEntry[]> {
  const entries: PriceBookEntry[] = [];
  for (const part of source.trim().split(/\s+/)) {
    const m = /^skinport:(https?:\/\/.+)$/i.exec(part);
    if (!m) throw new PriceBookError(`price source ${JSON.stringify(part)}: expected skinport:<http(s) URL>`);
    entries.push(...skinportEntries(await fetchText(m[1]!), skinportGame(m[1]!)));
  }
  return entries;
}

async function defaultFetch(url: string): Promise<string> {
  let res: Response;
  try {
    // Skinport serves the list compressed and asks clients to accept it (fetch does).
    res = await fetch(url, { signal: AbortSignal.timeout(60_000), headers: { accept: 'application/json' } });
  } catch (err) {
    throw new PriceBookError(`could not fetch ${url}: ${(err as Error).message}`);
  }
  const text = await res.text();
  if (!res.ok) throw new PriceBookError(`could not fetch ${url}: HTTP ${res.status}`);
  return text;
}
