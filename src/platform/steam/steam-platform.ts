// The steam adapter of the trading-platform port (issue 11). Each instance drives the bots it
// holds a lease on (bots table, BOT_LEASE_SECONDS; another instance takes a bot over once the lease
// runs out), signs them in (refresh tokens stored encrypted in the database), sends offers whose
// message names the record (so a lost answer is looked up, never resent blindly), confirms them
// with the identity secret, polls their states (steam-tradeoffer-manager) and the trade history
// (reversals: status 12 / rollback_trade), and reports every change to the gateway's handler
// until the handler has taken it (steam_offers.state vs reported_state).
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import type { Game } from '../../domain/games.js';
import { isAppError } from '../../domain/errors.js';
import * as bots from './bot-repo.js';
import {
  PlatformUnavailableError, PlatformUserError, platformIdOf,
  type OfferChangeHandler, type OfferGuard, type OfferResolution, type PlatformItem, type PlatformUser, type SentOffer, type TradingPlatform,
} from '../port.js';
import { createBackoff } from './backoff.js';
import { createSecretBox, parseSecretsKey, refreshTokenAad, secretsAad, type BotSecrets } from './secret-box.js';
import { BotSignInError, steamSessionProvider, type SessionProvider } from './session.js';
import { BotDriver, type OfferSnapshot } from './steam-bot.js';
import {
  APP_IDS, OfferState, TRADABLE_CONTEXT, offerChangeOf, platformItemsOf, recordOfMessage, reversedTradeIds, reverterOf, userErrorOfDetails,
} from './steam-mapping.js';
import * as offers from './steam-offers-repo.js';
import { platformError, sendOffer, settleOpenOffers, type SendRequest } from './steam-send.js';
import { checkBot } from './steam-check.js';
import * as stock from './steam-stock.js';

export interface SteamDeps {
  db: Db;
  config: Config;
  clock: Clock;
  log: Logger;
  sessions?: SessionProvider;
  /** This instance's lease owner name (default: random per process). */
  instanceId?: string;
}

const INVENTORY_CACHE_MS = 30_000;
/**
 * A bot's own tradable asset ids per game, kept between purchases: dropped whenever one of the
 * bot's offers changes (its own trades move its items), and read again when an asset is not in it.
 */
const OWN_INVENTORY_CACHE_MS = 5 * 60_000;
/** Trade protection: a CS2 trade can be reversed for 7 days; the history is read back 8. */
const PROTECTION_WINDOW_MS = 7 * 24 * 3600 * 1000;
const HISTORY_WINDOW_MS = 8 * 24 * 3600 * 1000;

export type SteamPlatform = TradingPlatform & {
  readonly instanceId: string;
  /** One lease round: take / renew leases, start and stop drivers. */
  leaseTick(): Promise<number[]>;
  /** One poll round: offer states, pending confirmations, unreported changes. */
  pollTick(): Promise<void>;
  /** One trade-history round: reversals. */
  historyTick(): Promise<void>;
  driverOf(botId: number): BotDriver | undefined;
};

export function createSteamPlatform(deps: SteamDeps): SteamPlatform {
  const { db, config, log } = deps;
  const settings = config.steam;
  const box = createSecretBox(parseSecretsKey(config.botSecretsKey ?? ''));
  const sessions = deps.sessions ?? steamSessionProvider(settings.callTimeoutMs);
  const instanceId = deps.instanceId ?? `gw-${crypto.randomBytes(6).toString('hex')}`;
  const backoff = createBackoff({ baseMs: settings.backoffBaseMs, maxMs: 60_000, attempts: 4 });
  /** accepting: the bot takes new offers (enabled); a disabled one only drains its open offers. */
  const drivers = new Map<number, { driver: BotDriver; games: string[]; accepting: boolean }>();
  const inventoryCache = new Map<string, { at: number; items: PlatformItem[] }>();
  const ownInventory = new Map<string, { at: number; tradable: Set<string> }>();
  const forgetOwnInventory = (botId: number) => {
    for (const k of ownInventory.keys()) if (k.startsWith(`${botId}:`)) ownInventory.delete(k);
  };
  let handler: OfferChangeHandler | undefined;
  // Until the gateway registers its guard every record wants its offer (the adapter alone, in tests).
  let guard: OfferGuard = async () => true;
  let timers: NodeJS.Timeout[] = [];

  // ---- bots
  async function driverFor(botId: number): Promise<BotDriver> {
    const row = await bots.botForDriver(db, botId);
    if (!row || !row.secrets) throw new PlatformUnavailableError(`bot ${botId} is not available`);
    const secrets = JSON.parse(box.open(row.secrets, secretsAad(row.account_name!))) as BotSecrets;
    const refreshToken = row.refresh_token ? box.open(row.refresh_token, refreshTokenAad(row.account_name!)) : undefined;
    const driver = new BotDriver(
      { id: Number(row.id), name: row.name, platformId: row.platform_id, accountName: row.account_name!, password: secrets.password, sharedSecret: secrets.shared_secret, identitySecret: secrets.identity_secret, refreshToken, webCookies: secrets.web_cookies, pollData: row.poll_data },
      {
        settings, sessions, backoff, offerTtlMs: config.offerTtlSeconds * 1000,
        events: {
          offerChanged: (o) => offerChanged(Number(row.id), o),
          pollData: (data) => bots.saveDriverState(db, Number(row.id), { poll_data: data }),
          refreshToken: (t) => bots.saveDriverState(db, Number(row.id), { refresh_token: box.seal(t, refreshTokenAad(row.account_name!)) }),
          session: (st) => void sessionChanged(Number(row.id), st),
          webCookies: async () => {
            const now = await bots.botForDriver(db, Number(row.id));
            return now?.secrets ? (JSON.parse(box.open(now.secrets, secretsAad(row.account_name!))) as BotSecrets).web_cookies : undefined;
          },
        },
      },
    );
    await driver.signIn();
    if (!row.trade_protection_acknowledged_at) {
      // Without it (2025) offers from the account hang: once per account.
      await driver.acknowledgeTradeProtection();
      await bots.saveDriverState(db, Number(row.id), { trade_protection_acknowledged_at: new Date() });
    }
    return driver;
  }

  /** Last live-session state per bot, and when last_authenticated_at was last written (at most every 10 s). */
  const sessionSeen = new Map<number, { live: boolean; savedAt: number }>();
  async function sessionChanged(botId: number, st: { live: boolean; at: Date; error?: string }): Promise<void> {
    const seen = sessionSeen.get(botId);
    const changed = !seen || seen.live !== st.live;
    if (!changed && st.live && Date.now() - seen.savedAt < 10_000) return;
    sessionSeen.set(botId, { live: st.live, savedAt: Date.now() });
    if (changed && seen) {
      if (st.live) log.warn({ botId }, 'steam: bot session live again; back in rotation');
      else log.warn({ botId, reason: st.error }, 'steam: bot session lost (signed out, sign-in failed); out of rotation, signing in again with backoff');
    }
    await bots.saveSession(db, botId, st.live ? { last_authenticated_at: st.at, session_error: null } : { session_error: st.error ?? 'signed out' })
      .catch((err) => log.warn({ botId, err: (err as Error).message }, 'steam: session state not saved'));
  }

  /** The bot's running driver, or one opened for this call (the CLI, or a bot another instance drives). */
  async function withDriver<T>(botId: number, fn: (d: BotDriver) => Promise<T>): Promise<T> {
    const running = drivers.get(botId)?.driver;
    const driver = running ?? (await driverFor(botId));
    try {
      return await fn(driver);
    } catch (err) {
      throw platformError(err);
    } finally {
      if (!running) driver.stop();
    }
  }

  async function outOfRotation(botId: number, reason: string): Promise<void> {
    log.error({ botId, reason }, 'steam: bot cannot trade; taken out of rotation');
    await bots.setTradeState(db, botId, 'cannot_trade', reason);
    drivers.get(botId)?.driver.stop();
    drivers.delete(botId);
    await bots.releaseLeases(db, instanceId, [botId]);
  }

  async function leaseTick(): Promise<number[]> {
    // Our fair share; bots above it are handed back so the other instances can take them. A lease
    // not renewed this round (its row locked by someone else) is still ours while it runs: only
    // leases beyond our share are released, never one merely skipped.
    const share = await bots.fairShare(db, instanceId, settings.leaseSeconds);
    const renewed = await bots.acquireLeases(db, instanceId, settings.leaseSeconds, share);
    const mine = await bots.heldLeases(db, instanceId);
    const held = mine.filter((b) => b.leasable).map((b) => b.id);
    const beyond = held.filter((id) => !renewed.includes(id)).slice(0, Math.max(0, held.length - share));
    await bots.releaseLeases(db, instanceId, [...beyond, ...mine.filter((b) => !b.leasable).map((b) => b.id)]);
    const ids = held.filter((id) => !beyond.includes(id));
    const rows = ids.length ? await db.selectFrom('bots').select(['id', 'games', 'trade_state', 'enabled']).where('id', 'in', ids).execute() : [];
    for (const [id, d] of drivers) {
      if (!ids.includes(id)) {
        d.driver.stop();
        drivers.delete(id);
      }
    }
    for (const r of rows) {
      const id = Number(r.id);
      if (r.trade_state !== 'ok') {
        drivers.get(id)?.driver.stop();
        drivers.delete(id);
        continue;
      }
      const known = drivers.get(id);
      if (known) {
        if (known.accepting !== r.enabled) log.warn({ botId: id, accepting: r.enabled }, r.enabled ? 'steam: bot back in rotation' : 'steam: bot disabled; draining its open offers');
        known.games = r.games;
        known.accepting = r.enabled;
        continue;
      }
      try {
        drivers.set(id, { driver: await driverFor(id), games: r.games, accepting: r.enabled });
      } catch (err) {
        if (err instanceof BotSignInError) await outOfRotation(id, (err as Error).message);
        else log.warn({ botId: id, err: (err as Error).message }, 'steam: bot could not start; retrying on the next lease round');
      }
    }
    return [...drivers.keys()];
  }

  /** A signed-in bot of ours serving `game`, spread by `seed`. */
  function pickDriver(game: Game, seed: number): BotDriver {
    const list = [...drivers.values()].filter((d) => d.accepting && d.driver.signedIn && d.games.includes(game)).map((d) => d.driver);
    if (list.length === 0) throw new PlatformUnavailableError('no bot is available for this game');
    return list[Math.abs(seed) % list.length];
  }

  // ---- offers
  async function offerChanged(botId: number, o: OfferSnapshot): Promise<void> {
    if (!o.isOurOffer) return;
    forgetOwnInventory(botId);
    const row = await offers.recordState(db, o.id, o);
    if (!row) {
      // An offer we sent whose send answer was lost: adopt it for its record (the message names it).
      const rec = recordOfMessage(o.message);
      const claim = rec && (await offers.findOffer(db, rec.kind, rec.recordId));
      if (claim && !claim.trade_offer_id && Number(claim.bot_id) === botId) {
        await offers.recordSent(db, rec.kind, rec.recordId, o.id, OfferState.Active);
        await offers.recordState(db, o.id, o);
        log.warn({ botId, kind: rec.kind, recordId: rec.recordId, tradeOfferId: o.id, state: o.state }, 'steam: an offer whose send answer was lost appeared');
        // A late offer its record no longer wants (it failed meanwhile) is withdrawn before it counts.
        if ((o.state === OfferState.Active || o.state === OfferState.CreatedNeedsConfirmation) && !(await guard(rec.kind, rec.recordId, o.id))) {
          await withdrawUnwanted(botId, rec.kind, rec.recordId, o.id);
        }
      }
    }
  }

  /** Cancels an offer its record does not want; a failure is retried by the next poll (the offer is still unwanted). */
  async function withdrawUnwanted(botId: number, kind: offers.OfferKind, recordId: number, tradeOfferId: string): Promise<void> {
    const driver = drivers.get(botId)?.driver;
    try {
      const offer = await driver!.getOffer(tradeOfferId);
      if (offer.state === OfferState.Active || offer.state === OfferState.CreatedNeedsConfirmation) await offer.cancel();
      log.warn({ botId, kind, recordId, tradeOfferId }, 'steam: offer for a record that no longer wants it canceled');
    } catch (err) {
      log.error({ botId, kind, recordId, tradeOfferId, err: (err as Error).message }, 'steam: could not cancel an unwanted offer; retried on the next poll');
    }
  }

  /** Hands every unreported change of our bots' offers to the gateway; what fails is retried next round. */
  async function deliver(): Promise<void> {
    if (!handler) return;
    for (const row of await offers.unreported(db, [...drivers.keys()])) {
      const d = drivers.get(Number(row.bot_id))?.driver;
      const base = { offer: row.offer_kind, recordId: Number(row.record_id), tradeOfferId: row.trade_offer_id!, ...(d ? { bot: { id: d.bot.id, name: d.bot.name, platformId: d.bot.platformId } } : {}) };
      try {
        if (row.state !== row.reported_state && row.state !== null) {
          const change = offerChangeOf(row.offer_kind, row.reported_state, row.state, row.escrow_ends_at);
          if (change) await settle(() => handler!({ ...base, ...change }), row.trade_offer_id!);
          await offers.markReported(db, row.trade_offer_id!, row.state, false);
        }
        if (row.reverted_at && !row.reversal_reported) {
          await settle(() => handler!({ ...base, change: 'reverted', by: reverterOf(row.offer_kind) }), row.trade_offer_id!);
          await offers.markReported(db, row.trade_offer_id!, row.state, true);
        }
      } catch (err) {
        log.warn({ tradeOfferId: row.trade_offer_id, err: (err as Error).message }, 'steam: offer change not applied yet; retried on the next poll');
      }
    }
  }

  /** The handler's not_found / invalid_transition / conflict mean the record cannot take this change (gone, or already past it): settled, but logged. */
  async function settle(apply: () => Promise<unknown>, tradeOfferId: string): Promise<void> {
    try {
      await apply();
    } catch (err) {
      if (isAppError(err) && (err.kind === 'not_found' || err.kind === 'invalid_transition' || err.kind === 'conflict')) {
        log.warn({ tradeOfferId, kind: err.kind, message: err.message }, 'steam: the gateway refused an offer change; needs an operator if items moved');
        return;
      }
      throw err;
    }
  }

  /** One bot's poll: its offers' states, then its open offers against their records (steam-send.ts settleOpenOffers). */
  async function pollBot(botId: number, driver: BotDriver): Promise<void> {
    try {
      await driver.pollWithSession();
    } catch (err) {
      log.warn({ botId, err: (err as Error).message }, 'steam: poll failed');
    }
    await settleOpenOffers({ db, log, guard }, driver);
  }

  async function pollTick(): Promise<void> {
    // Each bot on its own: one bot's backoff or lost session never delays another's poll.
    await Promise.all([...drivers].map(([botId, { driver }]) => pollBot(botId, driver).catch((err) => log.warn({ botId, err: (err as Error).message }, 'steam: poll failed'))));
    await deliver();
    await recordReceived();
  }

  /** The new asset ids of items received in accepted deposits (what their listings will give). */
  async function recordReceived(): Promise<void> {
    for (const o of await offers.depositsWithoutAssets(db, [...drivers.keys()])) {
      const driver = drivers.get(Number(o.bot_id))?.driver;
      if (!driver) continue;
      try {
        const items = await driver.receivedAssets(o.trade_offer_id!);
        await offers.recordReceivedAssets(db, items.map((i) => ({
          deposit_id: Number(o.record_id), asset_id: i.assetid, bot_id: driver.bot.id, trade_offer_id: o.trade_offer_id!, new_asset_id: i.new_assetid, new_context_id: i.new_contextid,
        })));
      } catch (err) {
        log.warn({ tradeOfferId: o.trade_offer_id, err: (err as Error).message }, 'steam: exchange details not read yet; retried on the next poll');
      }
    }
  }

  async function historyTick(): Promise<void> {
    const since = new Date(deps.clock.now().getTime() - HISTORY_WINDOW_MS);
    for (const [botId, { driver }] of drivers) {
      try {
        const readAt = new Date(); // everything the platform had before this moment has been read
        const trades = await driver.tradeHistory(since);
        const n = await offers.markReversed(db, reversedTradeIds(trades));
        await bots.saveDriverState(db, botId, { history_read_at: readAt });
        if (n) log.warn({ botId, reversed: n }, 'steam: trades reversed during trade protection');
      } catch (err) {
        log.warn({ botId, err: (err as Error).message }, 'steam: trade history failed');
      }
    }
    await deliver();
  }

  const send = (kind: offers.OfferKind, recordId: number, driver: BotDriver, req: SendRequest) =>
    sendOffer({
      db, log, clock: deps.clock, offerTtlSeconds: config.offerTtlSeconds, callTimeoutMs: settings.callTimeoutMs, settleMs: settings.sendSettleMs,
      driverOf: (id) => drivers.get(id)?.driver, outOfRotation, guard: (k, r, t) => guard(k, r, t),
    }, kind, recordId, driver, req);

  /** The driver of a record's claimed offer, when this instance drives its bot. */
  function ownerOf(claim: offers.SteamOfferRow): BotDriver {
    const driver = drivers.get(Number(claim.bot_id))?.driver;
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
    const acceptedAt = new Date(claim.accepted_at ?? claim.updated_at).getTime();
    const bot = await db.selectFrom('bots').select('history_read_at').where('id', '=', claim.bot_id).executeTakeFirst();
    return Boolean(bot?.history_read_at && new Date(bot.history_read_at).getTime() >= acceptedAt + PROTECTION_WINDOW_MS);
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
    kind: 'steam',
    instanceId,
    leaseTick,
    pollTick,
    historyTick,
    driverOf: (id) => drivers.get(id)?.driver,
    resolveOffer,
    expireOffer,
    holdMayEnd,
    onOfferGuard(g) {
      guard = g;
    },

    async checkTradeLink(game, partner, token): Promise<PlatformUser> {
      if (!Number.isInteger(partner) || partner < 1 || partner > 0xffffffff || typeof token !== 'string' || !/^[A-Za-z0-9_-]{8}$/.test(token)) {
        throw new PlatformUserError('trade_link_invalid');
      }
      const driver = pickDriver(game, partner);
      const them = await driver.userDetails(platformIdOf(partner), token).catch((e) => { throw platformError(e); });
      const code = userErrorOfDetails(game, them);
      if (code) throw new PlatformUserError(code);
      return { partner, token, platformId: platformIdOf(partner), name: them.personaName, avatarUrl: them.avatarFull };
    },

    async loadInventory(game, partner, token): Promise<PlatformItem[]> {
      const key = `${partner}:${game}`;
      const hit = inventoryCache.get(key);
      if (hit && Date.now() - hit.at < INVENTORY_CACHE_MS) return hit.items;
      const driver = pickDriver(game, partner);
      void token; // the inventory is public to every bot; the trade link was checked by checkTradeLink
      const raw = await driver.inventory(platformIdOf(partner), APP_IDS[game], TRADABLE_CONTEXT).catch((e) => { throw platformError(e); });
      const items = platformItemsOf(raw);
      inventoryCache.set(key, { at: Date.now(), items });
      return items;
    },

    async sendDepositOffer(req): Promise<SentOffer> {
      const driver = pickDriver(req.game, req.depositId);
      return send('deposit', req.depositId, driver, { partner: req.partner, token: req.token, give: [], receive: req.assets.map((a) => a.assetId), game: req.game });
    },

    async sendPurchaseOffer(req): Promise<SentOffer> {
      // A deposited item is given under the asset id it arrived with; other listings name theirs.
      const received = await offers.receivedAssetOfListing(db, req.listingId);
      const assetId = received?.new_asset_id ?? req.assetId;
      if (!assetId) throw new PlatformUnavailableError('the listing has no platform asset to give');
      const started = Date.now();
      // The bot holding the asset, tradable (context 2: a protected item in 16 is not offered yet).
      const claimed = await offers.findOffer(db, 'purchase', req.purchaseId);
      let holder = claimed ? drivers.get(Number(claimed.bot_id))?.driver : undefined;
      let unread = false; // a bot whose inventory could not be read may hold it: retried, not refused
      // From the cached inventories first; bots whose cache did not show it are read once more.
      for (const fresh of [false, true]) {
        for (const { driver, games, accepting } of holder ? [] : drivers.values()) {
          if (!accepting || !driver.signedIn || !games.includes(req.game)) continue;
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
      const driver = botId !== undefined ? drivers.get(botId)?.driver : [...drivers.values()][0]?.driver;
      if (!driver) throw new PlatformUnavailableError('the offer\'s bot is not driven by this instance');
      const offer = await driver.getOffer(req.tradeOfferId).catch((e) => { throw platformError(e); });
      if (recordOfMessage(offer.message)?.recordId !== req.recordId) throw new Error(`steam: offer ${req.tradeOfferId} is not the offer of ${req.offer} ${req.recordId}`);
      if (offer.state === OfferState.Active || offer.state === OfferState.CreatedNeedsConfirmation) {
        await offer.cancel().catch((e) => { throw platformError(e); });
      }
    },

    onOfferChange(h) {
      handler = h;
    },

    checkBot: (botId: number) => checkBot({ db, running: (id) => drivers.get(id)?.driver, open: driverFor }, botId),
    botInventory: (botId, game) => withDriver(botId, (d) => stock.botInventory(db, d, game)),
    botTrades: (botId, since) => withDriver(botId, (d) => stock.botTrades(d, botId, since)),

    async start(): Promise<void> {
      await leaseTick();
      const every = (ms: number, fn: () => Promise<unknown>) => {
        let running = false;
        const t = setInterval(() => {
          if (running) return;
          running = true;
          fn().catch((err) => log.warn({ err: (err as Error).message }, 'steam: background round failed')).finally(() => { running = false; });
        }, ms);
        t.unref();
        timers.push(t);
      };
      every(Math.max(1000, Math.floor((settings.leaseSeconds * 1000) / 3)), leaseTick);
      every(settings.pollIntervalMs, pollTick);
      every(settings.historyPollMs, historyTick);
    },

    async stop(): Promise<void> {
      for (const t of timers) clearInterval(t);
      timers = [];
      for (const { driver } of drivers.values()) driver.stop();
      drivers.clear();
      await bots.releaseLeases(db, instanceId).catch(() => {});
      await bots.forgetInstance(db, instanceId).catch(() => {});
    },
  };
}
