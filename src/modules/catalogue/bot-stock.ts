// The bots' stock is the catalogue: `gateway bot sync`, POST
// /api/admin/bots/sync and the scheduled job (BOT_SYNC_SECONDS) read every bot's inventory from the
// platform and list what may be sold — tradable, not in trade protection, not in an offer, not
// already listed by a deposit or an import, priced by the price book (phase by phase) within the
// BOT_SYNC_* filters — and delist the bot's listings whose item left it. A listing per (bot, asset)
// (source 'bot'), written through the catalogue's listing writes (page versions, change feed).
// A bot whose inventory could not be read is left as it is: a failed read never delists anything.
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { BotSyncSettings } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Game } from '../../domain/games.js';
import type { BotItem, TradingPlatform } from '../../platform/port.js';
import type { PricingService } from '../pricing/pricing-service.js';
import type { ListingInput } from './catalogue-repo.js';
import { assetsListedElsewhere, delistBotListings, upsertBotListings } from './bot-stock-repo.js';
import type { PageState } from './page-state.js';

/** Why an item of a bot is not listed. */
export type SkipReason = 'protected' | 'in_offer' | 'deposit' | 'listed' | 'unpriced' | 'filtered';

export interface StockDecision {
  listed: ListingInput[];
  skipped: Record<SkipReason, number>;
}

/** Deterministic listing ID of a bot's item: 40 lowercase hex characters. */
export function botListingId(botId: number, game: Game, assetId: string): string {
  return crypto.createHash('sha256').update(`bot:${botId}:${game}:${assetId}`).digest('hex').slice(0, 40);
}

/**
 * Pure: which of a bot's items become listings, at what base price. `price` answers the book
 * entry of an item (undefined: unpriced); `listedElsewhere` the assets another listing stands for.
 */
export function decideStock(
  botId: number,
  game: Game,
  items: readonly BotItem[],
  price: (it: BotItem) => { price: number; image_url: string; exterior?: string; rarity?: string; rarity_color?: string } | undefined,
  listedElsewhere: ReadonlySet<string>,
  settings: Pick<BotSyncSettings, 'minPriceMills' | 'maxPriceMills' | 'pricePercent'>,
): StockDecision {
  const skipped: Record<SkipReason, number> = { protected: 0, in_offer: 0, deposit: 0, listed: 0, unpriced: 0, filtered: 0 };
  const listed: ListingInput[] = [];
  for (const it of items) {
    const skip = (why: SkipReason) => void skipped[why]++;
    if (it.tradable === false) { skip('protected'); continue; }
    if (it.inOffer) { skip('in_offer'); continue; }
    // A deposited item is listed by its deposit's completion (one listing per item).
    if (it.depositId !== undefined) { skip('deposit'); continue; }
    if (listedElsewhere.has(it.assetId)) { skip('listed'); continue; }
    const e = price(it);
    if (!e) { skip('unpriced'); continue; }
    if (e.price < settings.minPriceMills || (settings.maxPriceMills > 0 && e.price > settings.maxPriceMills)) { skip('filtered'); continue; }
    listed.push({
      id: botListingId(botId, game, it.assetId),
      game,
      name: it.marketHashName,
      base_price: Math.round((e.price * settings.pricePercent) / 100),
      image_url: e.image_url,
      exterior: e.exterior ?? null,
      rarity: e.rarity ?? null,
      rarity_color: e.rarity_color ?? null,
      asset_id: it.assetId,
      float: it.float ?? null,
      paint_seed: it.paintSeed ?? null,
      phase: it.phase ?? null,
      source: 'bot',
      source_ref: `bot:${botId}:${it.assetId}`,
    });
  }
  return { listed, skipped };
}

export interface BotSyncReport {
  bots: Array<{ bot_id: number; game: Game; items: number; listed: number; delisted: number; skipped: Record<SkipReason, number>; error?: string }>;
  listed: number;
  delisted: number;
  errors: number;
}

export function createBotStockSync(deps: {
  db: Db;
  log: Logger;
  settings: BotSyncSettings;
  platform: Pick<TradingPlatform, 'kind' | 'botInventory'>;
  pricing: Pick<PricingService, 'itemEntry' | 'quote'>;
  state: Pick<PageState, 'noteLocalWrite'>;
}) {
  const { db, log, settings, platform } = deps;

  /** Price book entry and card of a bot's item (the deposit pricing's phase rule), undefined = unpriced. */
  const price = (game: Game) => (it: BotItem) => {
    const e = deps.pricing.itemEntry(game, it);
    const card = e && deps.pricing.quote({ deposit_multiplier: 1 }, game, it.marketHashName, it.phase)?.card;
    return e && card ? { price: e.price, image_url: card.image_url, exterior: e.exterior, rarity: e.rarity, rarity_color: e.rarity_color } : undefined;
  };

  /** The bots whose stock is listed: not removed; on steam the operator-managed ones. */
  async function stockBots(): Promise<Array<{ id: number; games: Game[] }>> {
    let q = db.selectFrom('bots').select(['id', 'games']).where('removed_at', 'is', null).orderBy('id');
    if (platform.kind === 'steam') q = q.where('account_name', 'is not', null);
    return (await q.execute()).map((b) => ({ id: Number(b.id), games: b.games as Game[] }));
  }

  async function syncOne(botId: number, game: Game): Promise<BotSyncReport['bots'][number]> {
    // The platform first, outside any transaction.
    const items = await platform.botInventory!(botId, game);
    const elsewhere = await assetsListedElsewhere(db, botId, items.map((i) => i.assetId));
    const decision = decideStock(botId, game, items, price(game), elsewhere, settings);
    // One writer per bot at a time (the schedule on one instance, an operator's sync on another).
    const { listed, delisted } = await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext('bot_stock_sync'), ${botId}::int)`.execute(trx);
      const n = await upsertBotListings(trx, decision.listed);
      const d = await delistBotListings(trx, botId, game, decision.listed.map((l) => l.asset_id!));
      return { listed: n, delisted: d };
    });
    return { bot_id: botId, game, items: items.length, listed, delisted, skipped: decision.skipped };
  }

  /** One sync of every bot (or one bot) and game; a bot that cannot be read is reported, not delisted. */
  async function sync(opts: { botId?: number } = {}): Promise<BotSyncReport> {
    if (!platform.botInventory) throw new Error('this platform cannot read the bots\' inventories');
    const report: BotSyncReport = { bots: [], listed: 0, delisted: 0, errors: 0 };
    for (const bot of await stockBots()) {
      if (opts.botId !== undefined && bot.id !== opts.botId) continue;
      for (const game of bot.games.filter((g) => settings.games.includes(g))) {
        try {
          const r = await syncOne(bot.id, game);
          report.bots.push(r);
          report.listed += r.listed;
          report.delisted += r.delisted;
        } catch (err) {
          report.errors++;
          const empty = { protected: 0, in_offer: 0, deposit: 0, listed: 0, unpriced: 0, filtered: 0 };
          report.bots.push({ bot_id: bot.id, game, items: 0, listed: 0, delisted: 0, skipped: empty, error: (err as Error).message });
          log.warn({ botId: bot.id, game, err: (err as Error).message }, 'bot stock sync: inventory not read; its listings are left as they are');
        }
      }
    }
    if (report.listed || report.delisted) deps.state.noteLocalWrite();
    log.info({ listed: report.listed, delisted: report.delisted, errors: report.errors }, 'bot stock synced');
    return report;
  }

  return { sync };
}

export type BotStockSync = ReturnType<typeof createBotStockSync>;
