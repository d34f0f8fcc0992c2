// What a steam bot holds and what it traded, read from the platform (for the catalogue sync and reconciliation):
// its inventory in the tradable context and, for CS2, the trade-protected one (context 16, items
// received in the last 7 days), with the items its active offers are giving; and its trade
// history matched to our offers through the offers' messages. Read through the bot's driver
// (backoff, timeout, re-login), never from the gateway's records.
import TradeOfferManager from 'steam-tradeoffer-manager';
import SteamID from 'steamid';
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Game } from '../../domain/games.js';
import type { BotItem, PlatformTrade } from '../port.js';
import type { BotDriver } from './steam-bot.js';
import { userInventory } from './library-internals.js';
import { APP_IDS, OfferState, PROTECTED_CONTEXT, TRADABLE_CONTEXT, TradeStatus, platformItemsOf, recordOfMessage, reversedTradeIds, type CommunityItem } from './steam-mapping.js';

/** Every item of one context (tradable or not), as steamcommunity parses it. */
export function contextItems(driver: BotDriver, appId: number, contextId: string): Promise<CommunityItem[]> {
  return driver.call('own-inventory', () => new Promise<CommunityItem[]>((resolve, reject) => {
    userInventory<CommunityItem>(driver.community, new SteamID(driver.bot.platformId), appId, Number(contextId), false,
      (err, items) => (err ? reject(err) : resolve(items ?? [])));
  }));
}

/** Our sent offers (every state) updated since `since`, as steam-tradeoffer-manager parses them. */
function sentOffers(driver: BotDriver, filter: number, since?: Date): Promise<any[]> {
  return driver.call('offers', () => new Promise<any[]>((resolve, reject) => {
    driver.manager.getOffers(filter, since ?? null, (err: Error | null, sent: any[]) => (err ? reject(err) : resolve(sent ?? [])));
  }));
}

export async function botInventory(db: Db, driver: BotDriver, game: Game): Promise<BotItem[]> {
  const appId = APP_IDS[game];
  const tradable = await contextItems(driver, appId, TRADABLE_CONTEXT);
  // CS2 keeps a received item in context 16 for the 7-day trade protection: held, not tradable.
  const protectedItems = game === 'csgo' ? await contextItems(driver, appId, PROTECTED_CONTEXT) : [];
  // platformItemsOf keeps tradable items only; an untradable one (a cooldown, protection) is held all the same.
  const untradable = new Set([...tradable.filter((i) => !isTradable(i)), ...protectedItems].map((i) => String(i.assetid ?? i.id)));
  const items: BotItem[] = platformItemsOf([...tradable, ...protectedItems].map((i) => ({ ...i, tradable: true })))
    .map((it) => (untradable.has(it.assetId) ? { ...it, tradable: false } : it));
  const giving = new Set<string>();
  for (const o of await sentOffers(driver, TradeOfferManager.EOfferFilter.ActiveOnly)) {
    if (o.state !== OfferState.Active && o.state !== OfferState.CreatedNeedsConfirmation) continue;
    for (const i of o.itemsToGive ?? []) giving.add(String(i.assetid ?? i.id));
  }
  const ids = items.map((i) => i.assetId);
  const received = ids.length
    ? (await sql<{ new_asset_id: string; deposit_id: string; asset_id: string }>`
        select new_asset_id, deposit_id::text, asset_id from steam_received_assets where bot_id = ${driver.bot.id} and new_asset_id = any(${ids}::text[])`.execute(db)).rows
    : [];
  const depositOf = new Map(received.map((r) => [r.new_asset_id, r]));
  return items.map((it) => ({
    ...it,
    ...(giving.has(it.assetId) ? { inOffer: true } : {}),
    ...(depositOf.has(it.assetId) ? { depositId: Number(depositOf.get(it.assetId)!.deposit_id), depositAssetId: depositOf.get(it.assetId)!.asset_id } : {}),
  }));
}

function isTradable(it: CommunityItem | undefined): boolean {
  return it?.tradable === true || it?.tradable === 1;
}

export async function botTrades(driver: BotDriver, botId: number, since: Date): Promise<PlatformTrade[]> {
  const history = await driver.tradeHistory(since);
  const reversed = new Set(reversedTradeIds(history));
  // The trade of each of our offers names its record through the offer's message.
  const byTrade = new Map<string, { id: string; message: string }>();
  for (const o of await sentOffers(driver, TradeOfferManager.EOfferFilter.All, since)) {
    if (o.tradeID) byTrade.set(String(o.tradeID), { id: String(o.id), message: o.message ?? '' });
  }
  const out: PlatformTrade[] = [];
  for (const t of history) {
    // A rollback trade is the reversal of another one (reported on that one), not a trade of its own.
    if (t.rollback_trade && t.rollback_trade !== '0') continue;
    const offer = byTrade.get(String(t.tradeid));
    const record = recordOfMessage(offer?.message) ?? undefined;
    const status: PlatformTrade['status'] = reversed.has(String(t.tradeid)) ? 'reversed'
      : t.status === TradeStatus.Complete ? 'complete'
      : t.status === TradeStatus.InEscrow ? 'in_escrow'
      : 'failed';
    out.push({ botId, tradeId: String(t.tradeid), at: new Date(t.time_init * 1000), status, ...(offer ? { tradeOfferId: offer.id } : {}), ...(record ? { record } : {}) });
  }
  return out;
}
