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
  type OfferChangeHandler, type PlatformItem, type PlatformUser, type SentOffer, type TradingPlatform,
} from '../port.js';
import { createBackoff } from './backoff.js';
import { createSecretBox, parseSecretsKey, refreshTokenAad, secretsAad, type BotSecrets } from './secret-box.js';
import { SignInError, steamSessionProvider, type SessionProvider } from './session.js';
import { BotDriver, type OfferSnapshot } from './steam-bot.js';
import {
  APP_IDS, OfferState, TRADABLE_CONTEXT, offerChangeOf, platformItemsOf, recordOfMessage, reversedTradeIds, reverterOf, userErrorOfDetails,
} from './steam-mapping.js';
import * as offers from './steam-offers-repo.js';
import { platformError, sendOffer, type SendRequest } from './steam-send.js';
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
/** Trade protection: a CS2 trade can be reversed for 7 days; the history is read back 8. */
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
  const drivers = new Map<number, { driver: BotDriver; games: string[] }>();
  const inventoryCache = new Map<string, { at: number; items: PlatformItem[] }>();
  let handler: OfferChangeHandler | undefined;
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
    // Our fair share; bots above it are handed back so the other instances can take them.
    const share = await bots.fairShare(db, instanceId, settings.leaseSeconds);
    const ids = await bots.acquireLeases(db, instanceId, settings.leaseSeconds, share);
    await bots.releaseLeases(db, instanceId, await heldBeyond(ids));
    const rows = ids.length ? await db.selectFrom('bots').select(['id', 'games', 'trade_state']).where('id', 'in', ids).execute() : [];
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
        known.games = r.games;
        continue;
      }
      try {
        drivers.set(id, { driver: await driverFor(id), games: r.games });
      } catch (err) {
        if (err instanceof SignInError) await outOfRotation(id, (err as Error).message);
        else log.warn({ botId: id, err: (err as Error).message }, 'steam: bot could not start; retrying on the next lease round');
      }
    }
    return [...drivers.keys()];
  }

  /** Bots whose lease we still hold but did not renew this round (above our share). */
  async function heldBeyond(kept: number[]): Promise<number[]> {
    const held = await db.selectFrom('bots').select('id').where('lease_owner', '=', instanceId).execute();
    return held.map((r) => Number(r.id)).filter((id) => !kept.includes(id));
  }

  /** A signed-in bot of ours serving `game`, spread by `seed`. */
  function pickDriver(game: Game, seed: number): BotDriver {
    const list = [...drivers.values()].filter((d) => d.driver.signedIn && d.games.includes(game)).map((d) => d.driver);
    if (list.length === 0) throw new PlatformUnavailableError('no bot is available for this game');
    return list[Math.abs(seed) % list.length];
  }

  // ---- offers
  async function offerChanged(botId: number, o: OfferSnapshot): Promise<void> {
    if (!o.isOurOffer) return;
    const row = await offers.recordState(db, o.id, o);
    if (!row) {
      // An offer we sent whose send answer was lost: adopt it for its record (the message names it).
      const rec = recordOfMessage(o.message);
      const claim = rec && (await offers.findOffer(db, rec.kind, rec.recordId));
      if (claim && !claim.trade_offer_id && Number(claim.bot_id) === botId) {
        await offers.recordSent(db, rec.kind, rec.recordId, o.id, OfferState.Active);
        await offers.recordState(db, o.id, o);
      }
    }
  }

  /** Hands every unreported change of our bots' offers to the gateway; what fails is retried next round. */
  async function deliver(): Promise<void> {
    if (!handler) return;
    for (const row of await offers.unreported(db, [...drivers.keys()])) {
      const base = { offer: row.offer_kind, recordId: Number(row.record_id), tradeOfferId: row.trade_offer_id! };
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

  async function pollTick(): Promise<void> {
    for (const [botId, { driver }] of drivers) {
      try {
        await driver.poll();
        for (const o of await offers.awaitingConfirmation(db, botId)) await driver.confirm(o.trade_offer_id!).catch(() => {});
      } catch (err) {
        log.warn({ botId, err: (err as Error).message }, 'steam: poll failed');
      }
    }
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
        const trades = await driver.tradeHistory(since);
        const n = await offers.markReversed(db, reversedTradeIds(trades));
        if (n) log.warn({ botId, reversed: n }, 'steam: trades reversed during trade protection');
      } catch (err) {
        log.warn({ botId, err: (err as Error).message }, 'steam: trade history failed');
      }
    }
    await deliver();
  }

  const send = (kind: offers.OfferKind, recordId: number, driver: BotDriver, req: SendRequest) =>
    sendOffer({ db, log, clock: deps.clock, offerTtlSeconds: config.offerTtlSeconds, callTimeoutMs: settings.callTimeoutMs, driverOf: (id) => drivers.get(id)?.driver, outOfRotation }, kind, recordId, driver, req);

  return {
    kind: 'steam',
    instanceId,
    leaseTick,
    pollTick,
    historyTick,
    driverOf: (id) => drivers.get(id)?.driver,

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
      // The bot holding the asset, tradable (context 2: a protected item in 16 is not offered yet).
      let holder: BotDriver | undefined;
      for (const { driver, games } of drivers.values()) {
        if (!driver.signedIn || !games.includes(req.game)) continue;
        const items = await driver.inventory(driver.bot.platformId, APP_IDS[req.game], TRADABLE_CONTEXT, 'own-inventory').catch(() => []);
        if (items.some((i) => String(i.assetid ?? i.id) === assetId && (i.tradable === true || i.tradable === 1))) {
          holder = driver;
          break;
        }
      }
      const claimed = await offers.findOffer(db, 'purchase', req.purchaseId);
      if (!holder && claimed) holder = drivers.get(Number(claimed.bot_id))?.driver;
      if (!holder) throw new PlatformUnavailableError('no bot of this instance holds the item in a tradable state');
      return send('purchase', req.purchaseId, holder, { partner: req.partner, token: req.token, give: [assetId], receive: [], game: req.game });
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
