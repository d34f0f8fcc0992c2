// Sending the one offer of a deposit or purchase (steam adapter). A claim row (steam_offers,
// primary key per record) guards it; an answer that may have been lost is looked up on the
// platform by the offer's message and never sent again, so no record gets two offers.
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import type { Game } from '../../domain/games.js';
import { PlatformAssetsRefusedError, PlatformOfferUncertainError, PlatformUnavailableError, PlatformUserError, platformIdOf, type OfferGuard, type SentOffer } from '../port.js';
import { RateLimitedError } from './backoff.js';
import type { BotDriver } from './steam-bot.js';
import { APP_IDS, OfferState, TRADABLE_CONTEXT, classifySendError, offerMessage, userErrorOfMessage } from './steam-mapping.js';
import * as offers from './steam-offers-repo.js';

export interface SendRequest {
  partner: number;
  token: string;
  give: string[];
  receive: string[];
  game: Game;
}

export interface SendContext {
  db: Db;
  log: Logger;
  clock: Clock;
  offerTtlSeconds: number;
  callTimeoutMs: number;
  /** STEAM_SEND_SETTLE_MS: how long an ambiguous send's offer may take to appear. */
  settleMs: number;
  driverOf(botId: number): BotDriver | undefined;
  outOfRotation(botId: number, reason: string): Promise<void>;
  /** Whether the record still wants this offer (asked before every confirmation). */
  guard: OfferGuard;
}

/** A library or platform error as the port's error: the user's, or "unavailable" (retryable). */
export function platformError(err: unknown): Error {
  if (err instanceof PlatformUserError || err instanceof PlatformUnavailableError || err instanceof PlatformOfferUncertainError) return err;
  const code = userErrorOfMessage((err as Error)?.message ?? '');
  if (code) return new PlatformUserError(code);
  if (err instanceof RateLimitedError) return new PlatformUnavailableError('the trading platform is rate limiting this bot', true);
  return new PlatformUnavailableError(`the trading platform did not answer: ${(err as Error)?.message ?? err}`, true);
}

/**
 * Sends the record's one offer. A claim row guards it: an earlier claim with an offer answers
 * that offer; one without (a lost answer, a crash mid-send) is first looked up on the platform by
 * its message. A claim whose send was ambiguous (eresult 16, a timeout, a hang-up) is never sent
 * again: until the offer is found it answers PlatformOfferUncertainError (the record waits), and
 * once STEAM_SEND_SETTLE_MS has passed with no offer, PlatformUnavailableError (the record may
 * fail; an offer appearing later is withdrawn by the poll, since its record no longer wants it).
 * A crash claim is sent again only when absent and older than twice the call timeout (a younger
 * one, still sending, answers PlatformOfferUncertainError too). An offer
 * that needs our mobile confirmation is out only once confirmed — and confirmed only while its
 * record wants it (ctx.guard).
 */
export async function sendOffer(ctx: SendContext, kind: offers.OfferKind, recordId: number, driver: BotDriver, req: SendRequest): Promise<SentOffer> {
  const { db } = ctx;
  const message = offerMessage(kind, recordId);
  const expiresAt = new Date(ctx.clock.now().getTime() + ctx.offerTtlSeconds * 1000);
  const botOf = (d: BotDriver) => ({ id: d.bot.id, name: d.bot.name, platformId: d.bot.platformId });
  /** The offer as the record's, once it is out (confirmed when it needs to be). */
  const out = async (d: BotDriver, id: string, state: number | null): Promise<SentOffer> => {
    if (state === OfferState.CreatedNeedsConfirmation) await confirmWanted(ctx, d, kind, recordId, id);
    return { bot: botOf(d), tradeOfferId: id, expiresAt };
  };
  const existing = await offers.findOffer(db, kind, recordId);
  if (existing?.trade_offer_id) {
    return out(ctx.driverOf(Number(existing.bot_id)) ?? driver, existing.trade_offer_id, existing.state);
  }
  if (existing) {
    const owner = ctx.driverOf(Number(existing.bot_id));
    // The offer may exist on a bot another instance drives: the record waits (never a second offer).
    if (!owner) throw new PlatformOfferUncertainError('an earlier attempt of this offer is on a bot this instance does not drive');
    const found = await owner.findSentByMessage(message, new Date(new Date(existing.created_at).getTime() - 60_000)).catch((e) => {
      throw existing.uncertain_since ? new PlatformOfferUncertainError('the offer of an ambiguous send could not be looked up yet') : platformError(e);
    });
    if (found) {
      await offers.recordFound(db, kind, recordId, found);
      return out(owner, found.id, found.state);
    }
    if (existing.uncertain_since) {
      if (ctx.clock.now().getTime() - new Date(existing.uncertain_since).getTime() < ctx.settleMs) throw new PlatformOfferUncertainError();
      throw new PlatformUnavailableError('the platform shows no offer for this record after its settle window');
    }
    driver = owner;
  }
  if (!(await offers.claimSend(db, { kind, recordId, botId: driver.bot.id, message }, 2 * ctx.callTimeoutMs))) {
    // An attempt still sending (its caller's deadline passed), or one that has just recorded its
    // offer: the offer may exist and be confirmed any moment, so the record must wait, not fail.
    throw new PlatformOfferUncertainError('an earlier attempt to send this offer may still be under way');
  }
  const appid = APP_IDS[req.game];
  const item = (assetid: string) => ({ appid, contextid: TRADABLE_CONTEXT, assetid });
  let sent: { id: string; pending: boolean };
  try {
    sent = await driver.send({ partnerSteamId: platformIdOf(req.partner), token: req.token, message, give: req.give.map(item), receive: req.receive.map(item) });
  } catch (err) {
    const failure = err instanceof RateLimitedError ? { kind: 'unavailable' as const } : classifySendError(err as Error);
    if (failure.kind === 'uncertain') {
      // The offer may exist, now or later: never sent again; looked up now and by every later attempt.
      await offers.markUncertain(db, kind, recordId);
      const found = await driver.findSentByMessage(message, new Date(ctx.clock.now().getTime() - 3600_000)).catch(() => undefined);
      if (found) {
        await offers.recordFound(db, kind, recordId, found);
        return out(driver, found.id, found.state);
      }
      throw new PlatformOfferUncertainError();
    }
    await offers.dropClaim(db, kind, recordId);
    if (failure.kind === 'user') throw new PlatformUserError(failure.code);
    // The user's items are gone: the deposit fails item_not_available (nothing credited). For a
    // purchase our own asset was checked just before, so it is retried (the next attempt looks again).
    if (failure.kind === 'assets_unavailable' && req.receive.length > 0) throw new PlatformAssetsRefusedError(req.receive);
    if (failure.kind === 'bot') {
      await ctx.outOfRotation(driver.bot.id, failure.reason);
      throw new PlatformUnavailableError('the bot cannot trade');
    }
    throw new PlatformUnavailableError(`the trading platform refused the offer for now: ${(err as Error).message}`, true);
  }
  const state = sent.pending ? OfferState.CreatedNeedsConfirmation : OfferState.Active;
  await offers.recordSent(db, kind, recordId, sent.id, state);
  return out(driver, sent.id, state);
}

/**
 * Confirms an offer awaiting our mobile confirmation, only while its record still wants it; an
 * offer no longer wanted is withdrawn instead (it was never out). A confirmation that fails leaves
 * the offer waiting: PlatformOfferUncertainError (the record's next attempt confirms it; the poll never does).
 */
export async function confirmWanted(ctx: Pick<SendContext, 'db' | 'log' | 'guard'>, driver: BotDriver, kind: offers.OfferKind, recordId: number, tradeOfferId: string): Promise<void> {
  if (!(await ctx.guard(kind, recordId, tradeOfferId))) {
    ctx.log.warn({ kind, recordId, tradeOfferId }, 'steam: offer awaiting confirmation for a record that no longer wants it: canceled, never confirmed');
    const offer = await driver.getOffer(tradeOfferId).catch((e) => { throw platformError(e); });
    if (offer.state === OfferState.CreatedNeedsConfirmation || offer.state === OfferState.Active) await offer.cancel().catch((e) => { throw platformError(e); });
    throw new PlatformUnavailableError('the record no longer wants this offer');
  }
  try {
    await driver.confirm(tradeOfferId);
  } catch (err) {
    ctx.log.warn({ tradeOfferId, err: (err as Error).message }, 'steam: confirmation failed; retried');
    throw new PlatformOfferUncertainError('the offer awaits its mobile confirmation');
  }
  await offers.markConfirmed(ctx.db, tradeOfferId);
}

/**
 * One bot's open offers against their records, each poll: an offer (awaiting our confirmation,
 * or out) that its record no longer wants is canceled before the user can accept it. The poll
 * never confirms: a confirmation is given only by the record's own send attempt, which then
 * decides the record — a poll confirming while that attempt's own confirmation failed put a
 * purchase's offer out just as the purchase failed and was refunded (found by the randomized
 * run). A cancel that fails is retried by the next poll; if the user accepts first, the record
 * follows (or the operator is alerted).
 */
export async function settleOpenOffers(ctx: Pick<SendContext, 'db' | 'log' | 'guard'>, driver: BotDriver): Promise<void> {
  for (const o of await offers.openOffers(ctx.db, driver.bot.id)) {
    const kind = o.offer_kind, recordId = Number(o.record_id), tradeOfferId = o.trade_offer_id!;
    if (await ctx.guard(kind, recordId, tradeOfferId)) continue;
    try {
      const offer = await driver.getOffer(tradeOfferId);
      if (offer.state === OfferState.Active || offer.state === OfferState.CreatedNeedsConfirmation) await offer.cancel();
      ctx.log.warn({ botId: driver.bot.id, kind, recordId, tradeOfferId, state: o.state }, 'steam: an open offer its record no longer wants was canceled, never confirmed');
    } catch (err) {
      ctx.log.error({ botId: driver.bot.id, kind, recordId, tradeOfferId, err: (err as Error).message }, 'steam: could not cancel an unwanted open offer; retried on the next poll');
    }
  }
}
