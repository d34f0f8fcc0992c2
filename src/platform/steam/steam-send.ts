// Sending the one offer of a deposit or purchase (steam adapter). A claim row (steam_offers,
// primary key per record) guards it; an answer that may have been lost is looked up on the
// platform by the offer's message before anything is sent again, so no record gets two offers.
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import type { Game } from '../../domain/games.js';
import { PlatformAssetsRefusedError, PlatformUnavailableError, PlatformUserError, platformIdOf, type SentOffer } from '../port.js';
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
  driverOf(botId: number): BotDriver | undefined;
  outOfRotation(botId: number, reason: string): Promise<void>;
}

/** A library or platform error as the port's error: the user's, or "unavailable" (retryable). */
export function platformError(err: unknown): Error {
  if (err instanceof PlatformUserError || err instanceof PlatformUnavailableError) return err;
  const code = userErrorOfMessage((err as Error)?.message ?? '');
  if (code) return new PlatformUserError(code);
  if (err instanceof RateLimitedError) return new PlatformUnavailableError('the trading platform is rate limiting this bot');
  return new PlatformUnavailableError(`the trading platform did not answer: ${(err as Error)?.message ?? err}`);
}

/**
 * Sends the record's one offer. A claim row guards it: an earlier claim with an offer answers
 * that offer; one without (a lost answer, a crash mid-send) is first looked up on the platform by
 * its message, and sent again only when absent and older than twice the call timeout.
 */
export async function sendOffer(ctx: SendContext, kind: offers.OfferKind, recordId: number, driver: BotDriver, req: SendRequest): Promise<SentOffer> {
  const { db, log } = ctx;
  const message = offerMessage(kind, recordId);
  const expiresAt = new Date(ctx.clock.now().getTime() + ctx.offerTtlSeconds * 1000);
  const botOf = (d: BotDriver) => ({ id: d.bot.id, name: d.bot.name, platformId: d.bot.platformId });
  const existing = await offers.findOffer(db, kind, recordId);
  if (existing?.trade_offer_id) {
    return { bot: botOf(ctx.driverOf(Number(existing.bot_id)) ?? driver), tradeOfferId: existing.trade_offer_id, expiresAt };
  }
  if (existing) {
    const owner = ctx.driverOf(Number(existing.bot_id));
    if (!owner) throw new PlatformUnavailableError('an earlier attempt of this offer is on a bot this instance does not drive');
    const found = await owner.findSentByMessage(message, new Date(new Date(existing.created_at).getTime() - 60_000)).catch((e) => { throw platformError(e); });
    if (found) {
      await offers.recordSent(db, kind, recordId, found.id, found.state);
      return { bot: botOf(owner), tradeOfferId: found.id, expiresAt };
    }
    driver = owner;
  }
  if (!(await offers.claimSend(db, { kind, recordId, botId: driver.bot.id, message }, 2 * ctx.callTimeoutMs))) {
    throw new PlatformUnavailableError('an earlier attempt to send this offer may still be under way');
  }
  const appid = APP_IDS[req.game];
  const item = (assetid: string) => ({ appid, contextid: TRADABLE_CONTEXT, assetid });
  let sent: { id: string; pending: boolean };
  try {
    sent = await driver.send({ partnerSteamId: platformIdOf(req.partner), token: req.token, message, give: req.give.map(item), receive: req.receive.map(item) });
  } catch (err) {
    const failure = err instanceof RateLimitedError ? { kind: 'unavailable' as const } : classifySendError(err as Error);
    if (failure.kind === 'uncertain') {
      // The offer may exist: look for it now; if absent the claim stays and the next attempt looks again.
      const found = await driver.findSentByMessage(message, new Date(ctx.clock.now().getTime() - 3600_000)).catch(() => undefined);
      if (found) {
        await offers.recordSent(db, kind, recordId, found.id, found.state);
        if (found.state === OfferState.CreatedNeedsConfirmation) await driver.confirm(found.id).catch(() => {});
        return { bot: botOf(driver), tradeOfferId: found.id, expiresAt };
      }
      throw new PlatformUnavailableError('the platform did not confirm the offer; it is looked up before any new attempt');
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
    throw new PlatformUnavailableError(`the trading platform refused the offer for now: ${(err as Error).message}`);
  }
  await offers.recordSent(db, kind, recordId, sent.id, sent.pending ? OfferState.CreatedNeedsConfirmation : OfferState.Active);
  // Mobile confirmation; a failure leaves the offer awaiting confirmation, retried on each poll.
  if (sent.pending) await driver.confirm(sent.id).catch((e) => log.warn({ tradeOfferId: sent.id, err: (e as Error).message }, 'steam: confirmation failed; retried on the next poll'));
  return { bot: botOf(driver), tradeOfferId: sent.id, expiresAt };
}
