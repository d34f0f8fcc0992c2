// The record-facing calls of the steam adapter: send, resolve, expire and cancel the one offer of
// a deposit or purchase (steam-send.ts sends it), and whether a hold may end. Each runs on the
// driver of the bot holding the record's offer (steam-drivers.ts); a bot another instance drives
// answers "unavailable" (or "unknown" to resolveOffer), never a guess.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import type { Game } from '../../domain/games.js';
import { PlatformUnavailableError, type OfferGuard, type OfferResolution, type SentOffer, type TradingPlatform } from '../port.js';
import type { BotDriver } from './steam-bot.js';
import { rotationOfDriven, type Drivers } from './steam-drivers.js';
import { APP_IDS, OfferState, TRADABLE_CONTEXT, recordOfMessage } from './steam-mapping.js';
import * as offers from './steam-offers-repo.js';
import { platformError, sendOffer, type SendRequest } from './steam-send.js';

/**
 * A bot's own tradable asset ids per game, kept between purchases: dropped whenever one of the
 * bot's offers changes (its own trades move its items), and read again when an asset is not in it.
 */
const OWN_INVENTORY_CACHE_MS = 5 * 60_000;

export interface RecordCallDeps {
  db: Db;
  config: Config;
  clock: Clock;
  log: Logger;
  drivers: Pick<Drivers, 'driverOf' | 'driven' | 'withPicked' | 'outOfRotation'>;
  /** The gateway's guard (registered later: always called through). */
  guard: OfferGuard;
}

export function createRecordCalls(deps: RecordCallDeps) {
  const { db, config, log, drivers } = deps;
  const settings = config.steam;
  const ownInventory = new Map<string, { at: number; tradable: Set<string> }>();

  /** Forgets a bot's cached own inventory (one of its offers changed: its items moved). */
  function forgetOwnInventory(botId: number): void {
    for (const k of ownInventory.keys()) if (k.startsWith(`${botId}:`)) ownInventory.delete(k);
  }

  const send = (kind: offers.OfferKind, recordId: number, driver: BotDriver, req: SendRequest) =>
    sendOffer({
      db, log, clock: deps.clock, offerTtlSeconds: config.offerTtlSeconds, callTimeoutMs: settings.callTimeoutMs, settleMs: settings.sendSettleMs,
      driverOf: (id) => drivers.driverOf(id), outOfRotation: drivers.outOfRotation, guard: deps.guard,
    }, kind, recordId, driver, req);

  /** The driver of a record's claimed offer, when this instance drives its bot. */
  function ownerOf(claim: offers.SteamOfferRow): BotDriver {
    const driver = drivers.driverOf(Number(claim.bot_id));
    if (!driver) throw new PlatformUnavailableError('the offer\'s bot is not driven by this instance');
    return driver;
  }

  async function resolveOffer(kind: offers.OfferKind, recordId: number): Promise<OfferResolution> {
    const claim = await offers.findOffer(db, kind, recordId);
    if (!claim) return { state: 'none' };
    const retryAt = new Date(deps.clock.now().getTime() + Math.min(settings.sendSettleMs, 30_000));
    const expiresAt = new Date(new Date(claim.attempt_started_at).getTime() + config.offerTtlSeconds * 1000);
    let driver: BotDriver;
    try {
      driver = ownerOf(claim);
      // sendOffer answers a recorded or findable offer (confirming it if needed) and never sends an
      // ambiguous claim again; the request's trade key and items are not needed for that.
      if (claim.trade_offer_id || claim.uncertain_since) {
        const sent = await send(kind, recordId, driver, { partner: 0, token: '', give: [], receive: [], game: 'csgo' });
        return { state: 'sent', offer: { ...sent, expiresAt } };
      }
    } catch (err) {
      if (err instanceof PlatformUnavailableError && /settle window/.test(err.message)) return { state: 'none', attempted: true };
      return { state: 'unknown', retryAt };
    }
    // A claim never marked ambiguous and still without an offer: a send in flight, or a crash before it.
    const age = deps.clock.now().getTime() - new Date(claim.attempt_started_at).getTime();
    const found = await driver.findSentByMessage(claim.message, new Date(new Date(claim.created_at).getTime() - 60_000)).catch(() => null);
    if (found === null) return { state: 'unknown', retryAt };
    if (found) {
      await offers.recordFound(db, kind, recordId, found);
      return { state: 'sent', offer: { bot: { id: driver.bot.id, name: driver.bot.name, platformId: driver.bot.platformId }, tradeOfferId: found.id, expiresAt } };
    }
    return age > Math.max(2 * settings.callTimeoutMs, settings.sendSettleMs) ? { state: 'none', attempted: true } : { state: 'unknown', retryAt };
  }

  async function holdMayEnd(req: { offer: offers.OfferKind; recordId: number; game: Game }): Promise<boolean> {
    const claim = await offers.findOffer(db, req.offer, req.recordId);
    if (!claim?.trade_offer_id) return true; // no offer of ours: nothing the platform could reverse
    if (claim.reverted_at) return false; // reported as a reversal instead
    if (req.game !== 'csgo') return true; // trade protection is CS2's
    // The items' own release times where Steam showed them: not before the latest plus the margin.
    const itemsEnd = await offers.itemsProtectionEnd(db, claim.trade_offer_id);
    if (itemsEnd && deps.clock.now().getTime() < itemsEnd.getTime() + settings.protectionMarginSeconds * 1000) return false;
    const end = itemsEnd ? itemsEnd.getTime() : protectionEndOf(claim, settings.protectionWindowSeconds);
    const bot = await db.selectFrom('bots').select('history_read_at').where('id', '=', claim.bot_id).executeTakeFirst();
    return Boolean(bot?.history_read_at && new Date(bot.history_read_at).getTime() >= end);
  }

  async function expireOffer(req: { offer: offers.OfferKind; recordId: number; tradeOfferId: string }): Promise<'gone' | 'accepted'> {
    const claim = await offers.findOffer(db, req.offer, req.recordId);
    if (!claim || claim.trade_offer_id !== req.tradeOfferId) throw new Error(`steam: offer ${req.tradeOfferId} is not the offer of ${req.offer} ${req.recordId}`);
    const offer = await ownerOf(claim).getOffer(req.tradeOfferId).catch((e) => { throw platformError(e); });
    if (offer.state === OfferState.Active || offer.state === OfferState.CreatedNeedsConfirmation) {
      // A cancel that fails (the user may be accepting right now) leaves the record open: retried.
      await offer.cancel().catch((e) => { throw platformError(e); });
      return 'gone';
    }
    if (offer.state === OfferState.Accepted || offer.state === OfferState.InEscrow) {
      await offers.recordState(db, offer.id, offer);
      return 'accepted';
    }
    return 'gone';
  }

  return {
    forgetOwnInventory,
    resolveOffer,
    expireOffer,
    holdMayEnd,
    async sendDepositOffer(req): Promise<SentOffer> {
      // The picker's rule (steam-drivers.ts candidates): a bot whose session died on the send goes on to the next.
      return drivers.withPicked(req.game, req.depositId, (driver) =>
        send('deposit', req.depositId, driver, { partner: req.partner, token: req.token, give: [], receive: req.assets.map((a) => a.assetId), game: req.game }));
    },

    async sendPurchaseOffer(req): Promise<SentOffer> {
      // A deposited item is given under the asset id it arrived with; other listings name theirs.
      const hint = await offers.holderHintOfListing(db, req.listingId);
      const assetId = hint.receivedAssetId ?? req.assetId;
      if (!assetId) throw new PlatformUnavailableError('the listing has no platform asset to give');
      const started = Date.now();
      // The bot holding the asset, tradable (context 2: a protected item in 16 is not offered yet).
      const claimed = await offers.findOffer(db, 'purchase', req.purchaseId);
      let holder = claimed ? drivers.driverOf(Number(claimed.bot_id)) : undefined;
      let unread = false; // a bot whose inventory could not be read may hold it: retried, not refused
      // The bot the listing names first (its inventory alone is read when it holds the item), then
      // the others; from the cached inventories first, bots whose cache did not show it read once more.
      const likely = (d: { driver: BotDriver }) => d.driver.bot.id === hint.botId || d.driver.bot.platformId === hint.ownerPlatformId;
      const order = [...drivers.driven.values()].sort((a, b) => Number(likely(b)) - Number(likely(a)));
      for (const fresh of [false, true]) {
        for (const d of holder ? [] : order) {
          const { driver, games } = d;
          if (rotationOfDriven(d).rotation !== 'in' || !games.includes(req.game)) continue;
          const key = `${driver.bot.id}:${req.game}`;
          let hit = ownInventory.get(key);
          if (fresh ? hit?.at === undefined || hit.at < started : !hit || Date.now() - hit.at > OWN_INVENTORY_CACHE_MS) {
            const items = await driver.inventory(driver.bot.platformId, APP_IDS[req.game], TRADABLE_CONTEXT, 'own-inventory').catch(() => undefined);
            if (!items) {
              unread = true;
              continue;
            }
            hit = { at: Date.now(), tradable: new Set(items.filter((i) => i.tradable === true || i.tradable === 1).map((i) => String(i.assetid ?? i.id))) };
            ownInventory.set(key, hit);
          }
          if (hit?.tradable.has(assetId)) {
            holder = driver;
            break;
          }
        }
        if (holder) break;
      }
      if (!holder && unread) throw new PlatformUnavailableError('a bot\'s inventory could not be read now', true);
      if (!holder) throw new PlatformUnavailableError('no bot of this instance holds the item in a tradable state');
      const sent = await send('purchase', req.purchaseId, holder, { partner: req.partner, token: req.token, give: [assetId], receive: [], game: req.game });
      ownInventory.get(`${holder.bot.id}:${req.game}`)?.tradable.delete(assetId); // in an offer now
      return sent;
    },

    async cancelOffer(req): Promise<void> {
      const row = await offers.findOffer(db, req.offer, req.recordId);
      const botId = row ? Number(row.bot_id) : undefined;
      const driver = botId !== undefined ? drivers.driverOf(botId) : [...drivers.driven.values()][0]?.driver;
      if (!driver) throw new PlatformUnavailableError('the offer\'s bot is not driven by this instance');
      const offer = await driver.getOffer(req.tradeOfferId).catch((e) => { throw platformError(e); });
      if (recordOfMessage(offer.message)?.recordId !== req.recordId) throw new Error(`steam: offer ${req.tradeOfferId} is not the offer of ${req.offer} ${req.recordId}`);
      if (offer.state === OfferState.Active || offer.state === OfferState.CreatedNeedsConfirmation) {
        await offer.cancel().catch((e) => { throw platformError(e); });
      }
    },
  } satisfies Partial<TradingPlatform> & { forgetOwnInventory(botId: number): void };
}

export type RecordCalls = ReturnType<typeof createRecordCalls>;

/**
 * When a CS2 trade's protection ends (ms epoch): the end Steam reported for the accepted trade
 * (escrow_ends_at of an Accepted offer: its items' own release time), else the acceptance plus
 * the protection window (STEAM_PROTECTION_WINDOW_SECONDS). The trade history must have been read
 * past it, with no reversal, before a hold ends.
 */
export function protectionEndOf(claim: { state: number | null; escrow_ends_at: Date | null; accepted_at: Date | null; updated_at: Date }, windowSeconds: number): number {
  if (claim.state === OfferState.Accepted && claim.escrow_ends_at) return new Date(claim.escrow_ends_at).getTime();
  return new Date(claim.accepted_at ?? claim.updated_at).getTime() + windowSeconds * 1000;
}
