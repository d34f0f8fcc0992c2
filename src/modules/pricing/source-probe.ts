// Each configured price source polled once, now, as the gateway would poll it (`gateway doctor`):
// whether it answers, with how many prices, of which games, and how many of them are fresh
// (PRICE_ITEM_MAX_AGE_SECONDS). The Steam guard is asked about one name another source priced.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { PriceProbe } from '../admin/preflight.js';
import { withDeadline } from '../../domain/deadline.js';
import type { Game } from '../../domain/games.js';
import { csfloatSource } from './sources/csfloat.js';
import { ownBookSource } from './sources/own-book.js';
import { skinportSource } from './sources/skinport.js';
import type { PriceSource, SourceReading } from './sources/source.js';
import { steamMarketSource } from './sources/steam-market.js';

/** One source's answer, as the doctor's price-source rule takes it (admin/preflight.ts), its games typed. */
export interface SourceProbe extends PriceProbe {
  games: Game[];
}

/** The Steam guard's name when no other source priced one (a CS2 item the market always lists). */
const GUARD_FALLBACK = { game: 'csgo' as Game, name: 'AK-47 | Redline (Field-Tested)' };

function summary(id: string, setting: string, role: 'market' | 'guard', readings: SourceReading[], freshAfter: number): SourceProbe {
  let newest: number | undefined;
  let fresh = 0;
  const games = new Set<Game>();
  for (const r of readings) {
    if (newest === undefined || r.asOf > newest) newest = r.asOf;
    if (r.asOf >= freshAfter) fresh++;
    games.add(r.game);
  }
  return { id, setting, role, readings: readings.length, fresh, ...(newest !== undefined ? { newestAsOf: newest } : {}), games: [...games] };
}

async function pollOnce(source: PriceSource, setting: string, timeoutMs: number, freshAfter: () => number): Promise<{ probe: SourceProbe; readings: SourceReading[] }> {
  try {
    const r = await withDeadline(source.poll(), timeoutMs, () => new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`));
    return { probe: summary(source.id, setting, source.role, r.readings, freshAfter()), readings: r.readings };
  } catch (err) {
    return { probe: { ...summary(source.id, setting, source.role, [], 0), error: (err as Error).message }, readings: [] };
  }
}

/**
 * Polls every price source the settings turn on (PRICE_BOOK, not the sandbox platform's default book), the market sources side by side, then the guard.
 * CSFloat reads one page (enough to see it answer). Never throws: a failure is the probe's `error`.
 */
export async function probePriceSources(config: Config, log: Logger, opts: { timeoutMs?: number } = {}): Promise<SourceProbe[]> {
  const pc = config.pricing;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const freshAfter = () => Date.now() - pc.itemMaxAgeSeconds * 1000;
  const market: [PriceSource, string][] = [];
  // The operator's book only: the sandbox platform's default book is no live source.
  if (config.priceBookSource) market.push([ownBookSource({ config, log, setMeta: () => {}, loaded: () => {} }), 'PRICE_BOOK']);
  if (pc.skinportUrls.length > 0) market.push([skinportSource(pc.skinportUrls), 'PRICE_SKINPORT']);
  if (pc.csfloatApiKey) {
    market.push([csfloatSource({ url: pc.csfloatUrl, apiKey: pc.csfloatApiKey, maxPages: 1, pageDelayMs: 0, intervalMs: pc.csfloatIntervalSeconds * 1000 }), 'PRICE_CSFLOAT_API_KEY']);
  }
  const answered = await Promise.all(market.map(([s, setting]) => pollOnce(s, setting, timeoutMs, freshAfter)));
  const probes = answered.map((a) => a.probe);
  if (pc.steamMarketUrl) {
    const priced = answered.flatMap((a) => a.readings);
    const named = priced.find((r) => r.game === 'csgo') ?? priced[0];
    const item = named ? { game: named.game, name: named.name } : GUARD_FALLBACK;
    let asked = false;
    const guard = steamMarketSource({ url: pc.steamMarketUrl, next: () => (asked ? undefined : ((asked = true), item)) });
    const g = await pollOnce(guard, 'PRICE_STEAM_MARKET_URL', timeoutMs, freshAfter);
    probes.push(g.probe);
  }
  return probes;
}
