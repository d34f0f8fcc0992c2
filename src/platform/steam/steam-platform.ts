// The steam adapter of the trading-platform port, put together from its three roles:
//   - steam-drivers.ts: which bots this instance drives (leases, sign-in, hand-over);
//   - steam-poll.ts: the poll and report path (offer states, history, changes to the gateway);
//   - steam-records.ts: the record-facing calls (send, resolve, expire, cancel a record's offer).
// Offers' messages name their record (so a lost answer is looked up, never resent blindly); the
// gateway's handler and guard are registered after creation and always called through.
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { noteDatabaseError } from '../../db/outage.js';
import type { Rotation } from '../../domain/bot-rotation.js';
import type { Clock } from '../../domain/clock.js';
import {
  PlatformUserError, platformIdOf,
  type OfferChangeHandler, type OfferGuard, type RefusedChange, type PlatformItem, type PlatformUser, type TradingPlatform,
} from '../port.js';
import * as bots from './bot-repo.js';
import { steamSessionProvider, type SessionProvider } from './session.js';
import type { BotDriver } from './steam-bot.js';
import { checkBot } from './steam-check.js';
import { createDrivers, rotationOfDriven, type SignInCounts } from './steam-drivers.js';
import { APP_IDS, TRADABLE_CONTEXT, platformItemsOf, userErrorOfDetails, type PartnerDetails } from './steam-mapping.js';
import { createPoll } from './steam-poll.js';
import { ReadCache } from './steam-read-cache.js';
import { createRecordCalls } from './steam-records.js';
import { platformError } from './steam-send.js';
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

export type SteamPlatform = TradingPlatform & {
  readonly instanceId: string;
  /** One lease round: take / renew leases, start and stop drivers. */
  leaseTick(): Promise<number[]>;
  /** One poll round: offer states, pending confirmations, unreported changes. */
  pollTick(): Promise<void>;
  /** One trade-history round: reversals. */
  historyTick(): Promise<void>;
  /** Sign-ins tried on the platform per bot name and outcome, since the process started. */
  readonly signIns: SignInCounts;
  driverOf(botId: number): BotDriver | undefined;
  /** The picker's rotation of a bot this instance drives (the rule every reader applies: domain/bot-rotation.ts). */
  rotationOf(botId: number): { rotation: Rotation; reason: string | null } | undefined;
};

export function createSteamPlatform(deps: SteamDeps): SteamPlatform {
  const { db, config, log } = deps;
  const settings = config.steam;
  const instanceId = deps.instanceId ?? `gw-${crypto.randomBytes(6).toString('hex')}`;
  const inventoryCache = new ReadCache<PlatformItem[]>(INVENTORY_CACHE_MS);
  // A trade link's partner details (the trade offer page) stand for the quote's life: the create
  // and the send of the same flow reuse them. A link revoked meanwhile fails the send with its own
  // error (trade_link_revoked), so nothing is sent on stale details.
  const detailsCache = new ReadCache<PartnerDetails>(config.quoteTtlSeconds * 1000);
  const forgetDetails = (err: unknown, req: { partner: number; token: string }) => {
    if (err instanceof PlatformUserError) detailsCache.delete(`${req.partner}:${req.token}`);
  };
  let handler: OfferChangeHandler | undefined;
  let changeRefused: ((refused: RefusedChange) => Promise<void>) | undefined;
  const refusedChanges: Record<string, number> = {};
  // Until the gateway registers its guard every record wants its offer (the adapter alone, in tests).
  let guard: OfferGuard = async () => true;
  const guardNow: OfferGuard = (k, r, t) => guard(k, r, t);
  let timers: NodeJS.Timeout[] = [];

  const drivers = createDrivers({
    db, config, log, instanceId, sessions: deps.sessions ?? steamSessionProvider(settings.callTimeoutMs, settings),
    offerChanged: (botId, o) => poll.offerChanged(botId, o),
  });
  const records = createRecordCalls({ db, config, clock: deps.clock, log, drivers, guard: guardNow });
  const poll = createPoll({ db, clock: deps.clock, log, drivers, handler: () => handler, guard: guardNow, forgetOwnInventory: records.forgetOwnInventory,
    changeRefused: () => changeRefused, refusedChanges, protectionMarginMs: settings.protectionMarginSeconds * 1000,
  });
  const { leaseTick, withPicked } = drivers;
  const { pollTick, historyTick } = poll;

  return {
    kind: 'steam',
    instanceId,
    leaseTick,
    pollTick,
    historyTick,
    driverOf: drivers.driverOf,
    signIns: drivers.signIns,
    rotationOf: (botId) => {
      const d = drivers.driven.get(botId);
      return d && rotationOfDriven(d);
    },
    // The operator's change is the picker's at once on this instance (other instances: their next lease round).
    botsChanged: async () => {
      await leaseTick();
    },
    resolveOffer: records.resolveOffer,
    expireOffer: records.expireOffer,
    holdMayEnd: records.holdMayEnd,
    // A send the platform refused for the user's reason (a revoked link…) drops the reused details.
    sendDepositOffer: (req) => records.sendDepositOffer(req).catch((e) => { forgetDetails(e, req); throw e; }),
    sendPurchaseOffer: (req) => records.sendPurchaseOffer(req).catch((e) => { forgetDetails(e, req); throw e; }),
    cancelOffer: records.cancelOffer,
    onOfferGuard(g) {
      guard = g;
    },

    async checkTradeLink(game, partner, token): Promise<PlatformUser> {
      if (!Number.isInteger(partner) || partner < 1 || partner > 0xffffffff || typeof token !== 'string' || !/^[A-Za-z0-9_-]{8}$/.test(token)) {
        throw new PlatformUserError('trade_link_invalid');
      }
      const detailsKey = `${partner}:${token}`;
      let them = detailsCache.get(detailsKey);
      // Only details that let the user trade are reused: one refused (a hold, hidden games) is read
      // again, so a user who has just fixed their settings is not refused on an old read.
      if (!them || userErrorOfDetails(game, them)) {
        them = await withPicked(game, partner, (driver) => driver.userDetails(platformIdOf(partner), token)).catch((e) => { throw platformError(e); });
        detailsCache.set(detailsKey, them);
      }
      const code = userErrorOfDetails(game, them);
      if (code) throw new PlatformUserError(code);
      return { partner, token, platformId: platformIdOf(partner), name: them.personaName, avatarUrl: them.avatarFull };
    },

    async loadInventory(game, partner, token): Promise<PlatformItem[]> {
      const key = `${partner}:${game}`;
      const hit = inventoryCache.get(key);
      if (hit) return hit;
      void token; // the inventory is public to every bot; the trade link was checked by checkTradeLink
      const raw = await withPicked(game, partner, (driver) => driver.inventory(platformIdOf(partner), APP_IDS[game], TRADABLE_CONTEXT)).catch((e) => { throw platformError(e); });
      const items = platformItemsOf(raw);
      inventoryCache.set(key, items);
      return items;
    },

    onOfferChange(h) {
      handler = h;
    },
    onChangeRefused(record) {
      changeRefused = record;
    },
    refusedChanges,

    checkBot: (botId: number) => checkBot({ db, running: drivers.driverOf, open: drivers.driverFor }, botId),
    botInventory: (botId, game) => drivers.withDriver(botId, (d) => stock.botInventory(db, d, game)),
    botTrades: (botId, since) => drivers.withDriver(botId, (d) => stock.botTrades(d, botId, since)),

    async start(): Promise<void> {
      await leaseTick();
      const every = (ms: number, fn: () => Promise<unknown>) => {
        let running = false;
        const t = setInterval(() => {
          if (running) return;
          running = true;
          // A database that is away is its one warning (db/outage.ts): the next round tries again.
          fn().catch((err) => noteDatabaseError(db, err) || log.warn({ err: (err as Error).message }, 'steam: background round failed')).finally(() => { running = false; });
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
      drivers.stopAll();
      await bots.releaseLeases(db, instanceId).catch(() => {});
      await bots.forgetInstance(db, instanceId).catch(() => {});
    },
  };
}
