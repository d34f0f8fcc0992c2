// The poll and report path of the steam adapter: each round reads the states of our bots' offers
// (steam-tradeoffer-manager), pending confirmations and the trade history (reversals: status 12 /
// rollback_trade), adopts an offer whose send answer was lost, withdraws offers no record wants,
// and reports every change to the gateway's handler until the handler has taken it
// (steam_offers.state vs reported_state).
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import { isAppError, type AppError, type ErrorKind } from '../../domain/errors.js';
import { ChangeAlreadyTaken } from '../offers.js';
import * as bots from './bot-repo.js';
import type { OfferChange, OfferChangeHandler, OfferGuard, RefusedChange } from '../port.js';
import type { BotDriver, OfferSnapshot } from './steam-bot.js';
import type { Drivers } from './steam-drivers.js';
import { APP_IDS, OfferState, PROTECTED_CONTEXT, offerChangeOf, protectionEndsOf, recordOfMessage, reversedTradeIds, reverterOf } from './steam-mapping.js';
import * as offers from './steam-offers-repo.js';
import { settleOpenOffers } from './steam-send.js';
import { contextItems } from './steam-stock.js';

/** The trade history is read back 8 days (a CS2 trade can be reversed for 7). */
const HISTORY_WINDOW_MS = 8 * 24 * 3600 * 1000;
/** The handler's answers that mean "the record cannot take this change" (anything else is retried). */
const REFUSALS: readonly ErrorKind[] = ['not_found', 'invalid_transition', 'conflict'];

/** The refusal's own words ("cannot accept from status hold"), else its message. */
function refusalText(err: AppError): string {
  const details = Array.isArray(err.data) ? err.data.map((d: { message?: unknown }) => d?.message).filter((m) => typeof m === 'string') : [];
  return details.length ? details.join('; ') : err.message;
}

export interface PollDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  drivers: Pick<Drivers, 'driverOf' | 'driven'>;
  /** The gateway's handler of offer changes, once registered (until then nothing is reported). */
  handler(): OfferChangeHandler | undefined;
  /** The gateway's guard (registered later: always called through). */
  guard: OfferGuard;
  /** One of the bot's offers changed: its items moved (steam-records.ts keeps its inventory). */
  forgetOwnInventory(botId: number): void;
  /** How the gateway records a refused change for the operator, once registered. */
  changeRefused(): ((refused: RefusedChange) => Promise<void>) | undefined;
  /** Refused changes by refusal kind, counted here and read by the metrics (port refusedChanges). */
  refusedChanges: Record<string, number>;
  /** STEAM_PROTECTION_MARGIN_SECONDS in ms: added to a protection end Steam reports before the hold ends. */
  protectionMarginMs: number;
}

export function createPoll(deps: PollDeps) {
  const { db, log, drivers, guard, forgetOwnInventory } = deps;

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
    const driver = drivers.driverOf(botId);
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
    const handler = deps.handler();
    if (!handler) return;
    for (const row of await offers.unreported(db, [...drivers.driven.keys()])) {
      const d = drivers.driverOf(Number(row.bot_id));
      const base = { offer: row.offer_kind, recordId: Number(row.record_id), tradeOfferId: row.trade_offer_id!, ...(d ? { bot: { id: d.bot.id, name: d.bot.name, platformId: d.bot.platformId } } : {}) };
      const bot = { id: Number(row.bot_id), name: d?.bot.name ?? `bot ${row.bot_id}` };
      try {
        if (row.state !== row.reported_state && row.state !== null) {
          const change = offerChangeOf(row.offer_kind, row.reported_state, row.state, row.escrow_ends_at, { marginMs: deps.protectionMarginMs, now: deps.clock.now() });
          if (change) await settle({ ...base, ...change }, handler, bot);
          await offers.markReported(db, row.trade_offer_id!, row.state, false);
        }
        if (row.reverted_at && !row.reversal_reported) {
          await settle({ ...base, change: 'reverted', by: reverterOf(row.offer_kind) }, handler, bot);
          await offers.markReported(db, row.trade_offer_id!, row.state, true);
        }
      } catch (err) {
        log.warn({ tradeOfferId: row.trade_offer_id, err: (err as Error).message }, 'steam: offer change not applied yet; retried on the next poll');
      }
    }
  }

  /**
   * The handler's not_found / invalid_transition / conflict mean the record cannot take this change:
   * settled (never offered again), but when the record has not already taken it (offers.ts
   * ChangeAlreadyTaken) items may have moved without it, so the operator is told: an audit entry
   * first (a failure to write it leaves the change unreported: retried), then the metric and an
   * error line naming bot, record and trade offer.
   */
  async function settle(change: OfferChange & { tradeOfferId: string }, handler: OfferChangeHandler, bot: { id: number; name: string }): Promise<void> {
    try {
      await handler(change);
    } catch (err) {
      if (!isAppError(err) || !REFUSALS.includes(err.kind)) throw err;
      const message = refusalText(err);
      const at = { botId: bot.id, offer: change.offer, recordId: change.recordId, tradeOfferId: change.tradeOfferId, change: change.change, refusal: err.kind, message };
      if (err instanceof ChangeAlreadyTaken) {
        log.info(at, 'steam: offer change already taken by its record');
        return;
      }
      await deps.changeRefused()?.({ offer: change.offer, recordId: change.recordId, tradeOfferId: change.tradeOfferId, change: change.change, refusal: err.kind, message, bot });
      deps.refusedChanges[err.kind] = (deps.refusedChanges[err.kind] ?? 0) + 1;
      log.error(at, 'steam: the gateway refused an offer change its record cannot take; items may have moved: needs an operator (audit offer_change_refused)');
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
    await Promise.all([...drivers.driven].map(([botId, { driver }]) => pollBot(botId, driver).catch((err) => log.warn({ botId, err: (err as Error).message }, 'steam: poll failed'))));
    await deliver();
    await recordReceived();
  }

  /** The new asset ids of items received in accepted deposits (what their listings will give). */
  async function recordReceived(): Promise<void> {
    for (const o of await offers.depositsWithoutAssets(db, [...drivers.driven.keys()])) {
      const driver = drivers.driverOf(Number(o.bot_id));
      if (!driver) continue;
      try {
        const items = await driver.receivedAssets(o.trade_offer_id!, o.trade_id);
        // CS2 items under trade protection land in context 16, each with its own release time:
        // read there once (a failed read leaves the trade for the next poll, nothing recorded).
        const ends = items.some((i) => i.new_contextid === PROTECTED_CONTEXT)
          ? protectionEndsOf(await contextItems(driver, APP_IDS.csgo, PROTECTED_CONTEXT))
          : new Map<string, Date>();
        await offers.recordReceivedAssets(db, items.map((i) => ({
          deposit_id: Number(o.record_id), asset_id: i.assetid, bot_id: driver.bot.id, trade_offer_id: o.trade_offer_id!, new_asset_id: i.new_assetid, new_context_id: i.new_contextid,
          protection_ends_at: ends.get(i.new_assetid) ?? null,
        })));
      } catch (err) {
        log.warn({ tradeOfferId: o.trade_offer_id, err: (err as Error).message }, 'steam: exchange details not read yet; retried on the next poll');
      }
    }
  }

  async function historyTick(): Promise<void> {
    const since = new Date(deps.clock.now().getTime() - HISTORY_WINDOW_MS);
    for (const [botId, { driver }] of drivers.driven) {
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

  return { offerChanged, pollTick, historyTick };
}
