// The Steam Community Market price overview, a guard and never a price (its 24 h median is easy
// to move): GET https://steamcommunity.com/market/priceoverview/?appid=730&currency=1&
// market_hash_name=… answers {"success":true,"lowest_price":"$1.23","volume":"1,234",
// "median_price":"$1.20"}. About 15 requests a minute per address: one name per poll, every 4 s,
// round-robin over the names the engine prices.
import type { Game } from '../../../domain/games.js';
import { getJson, SourceError, type PollResult, type PriceSource } from './source.js';

export const STEAM_INTERVAL_MS = 4_000;
const APP_IDS: Record<Game, number> = { csgo: 730, rust: 252490, dota2: 570, tf2: 440 };

/** "$1,234.56" → mills; undefined when absent or not a dollar amount. */
export function steamUsdToMills(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^\$?\s*([\d,]+)(?:\.(\d{1,3}))?\s*(?:USD)?$/.exec(v.trim());
  if (!m) return undefined;
  return Number(m[1]!.replace(/,/g, '')) * 1000 + Number((m[2] ?? '').padEnd(3, '0'));
}

export function steamVolume(v: unknown): number | undefined {
  if (typeof v !== 'string' || !/^[\d,]+$/.test(v.trim())) return undefined;
  return Number(v.trim().replace(/,/g, ''));
}

export function steamMarketSource(o: { url: string; intervalMs?: number; next: () => { game: Game; name: string } | undefined }): PriceSource {
  return {
    id: 'steam',
    role: 'guard',
    intervalMs: o.intervalMs ?? STEAM_INTERVAL_MS,
    async poll(): Promise<PollResult> {
      const item = o.next();
      if (!item) return { readings: [], complete: [] };
      const u = new URL(o.url);
      u.searchParams.set('appid', String(APP_IDS[item.game]));
      u.searchParams.set('currency', '1');
      u.searchParams.set('market_hash_name', item.name);
      const body = (await getJson(u.toString())) as { success?: unknown; median_price?: unknown; lowest_price?: unknown; volume?: unknown } | null;
      if (!body || typeof body !== 'object') throw new SourceError('steam: the price overview is not an object');
      if (body.success !== true) return { readings: [], complete: [] }; // no such item on the market
      const price = steamUsdToMills(body.median_price) ?? steamUsdToMills(body.lowest_price);
      if (price === undefined) return { readings: [], complete: [] };
      const volume = steamVolume(body.volume);
      return { readings: [{ game: item.game, name: item.name, price, asOf: Date.now(), liquidity: volume ?? 0 }], complete: [] };
    },
  };
}
