// The deposit offer stage (spec 4.5 rules 8–9, 3.1): send the offer of a committed deposit within
// DEPOSIT_TIMEOUT_MS and record it (pending → active), withdraw offers the deposit never recorded,
// and turn the platform's offer changes into the deposit's transitions. The platform call stays
// outside any database transaction; the offer layer (src/platform/offers.ts) holds the shared rules.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import type { Game } from '../../domain/games.js';
import { batched } from '../../db/batched.js';
import { createOffers, PlatformTimeoutError, type OfferEventOf } from '../../platform/offers.js';
import { causeOf, isTransient, RetriesExhaustedError, retryWithin } from '../../platform/retry.js';
import { PlatformAssetsRefusedError, PlatformOfferUncertainError, type OfferChange, type OfferedAsset, type SentOffer, type TradingPlatform } from '../../platform/port.js';
import { insertAudit } from '../accounts/audit-log.js';
import { delistDepositItems } from '../catalogue/writes.js';
import { applyMovement, InsufficientFundsError } from '../ledger/ledger-moves.js';

/** A hold whose trade the platform cannot clear yet is looked at again this much later. */
const HOLD_RECHECK_MS = 10 * 60_000;
/** The jittered backoff between a deposit's send attempts within DEPOSIT_TIMEOUT_MS (platform/retry.ts). */
const SEND_RETRY = { baseMs: 250, capMs: 2_000 };
import { scheduleDepositOfferCancel } from './deposit-jobs.js';
import * as repo from './deposit-repo.js';
import type { DepositRow } from './deposit-repo.js';
import type { DepositTransitions } from './deposit-transitions.js';
import { statusView } from './deposit-views.js';

export interface DepositOfferDeps {
  db: Db;
  config: Pick<Config, 'depositTimeoutMs' | 'holdSeconds'>;
  clock: Clock;
  log: Logger;
  platform: Pick<TradingPlatform, 'sendDepositOffer' | 'cancelOffer' | 'expireOffer' | 'resolveOffer' | 'holdMayEnd'>;
  transitions: DepositTransitions;
}

export function createDepositOfferStage(deps: DepositOfferDeps) {
  const { db, config, log, platform, transitions } = deps;

  // The reads of concurrent offer changes, one statement per batch (db/batched.ts): the read
  // starts after the call, so it is as fresh as a read of its own.
  const read = batched<number, DepositRow | undefined>(
    async (ids) => {
      const byId = new Map((await repo.findDepositsByIds(db, [...new Set(ids)])).map((d) => [Number(d.id), d]));
      return ids.map((id) => byId.get(id));
    },
    { maxBatch: 256, inFlight: 2 },
  );

  const offers = createOffers<DepositRow>(deps, {
    kind: 'deposit',
    // Scoped to the merchant: another merchant's deposit is not found.
    find: async (id, merchantId) => {
      const d = await read.add(id);
      return d && (merchantId === undefined || Number(d.merchant_id) === merchantId) ? d : undefined;
    },
    gameHoldSeconds: (d) => config.holdSeconds[(d.game ?? 'csgo') as Game],
    // The deposit just read: the transition is one statement guarded by what was read (applyFrom).
    apply: (d, e, merchantId) =>
      transitions.applyFrom(d, e.event, {
        ...(merchantId !== undefined ? { merchantId } : {}),
        ...(e.failReason ? { failReason: e.failReason } : {}),
        ...(e.event === 'accept_hold' ? { set: { hold_end_date: e.holdEndsAt ?? transitions.holdEndFor(d.game) } } : {}),
      }),
    scheduleCancel: scheduleDepositOfferCancel,
    pendingRetryMs: 5_000,
    follow: (d, e, change) => follow(d, e, change),
    reversedAfterCompletion: (d, change) => reversedAfterCompletion(d, change),
    // Only where the platform can say what became of an ambiguous send (a real one); elsewhere the pending sweep decides.
    ...(platform.resolveOffer ? { resolvePending: (id: number) => resolvePending(id) } : {}),
  });

  /**
   * A reversal seen after the deposit completed (the items are gone from the bot, the amount was
   * credited): the amount is taken back from the merchant's available balance as ledger movement
   * deposit_late_revert (key deposit:<id>:late_revert) when it covers it, its listings still for
   * sale are delisted, and the operator is
   * alerted (error log, audit deposit_reversed_after_completion with recovered true/false). The
   * deposit stays completed: the spec has no status after completed, so no webhook.
   */
  async function reversedAfterCompletion(d: DepositRow, change: OfferChange): Promise<DepositRow> {
    const recovered = await db.transaction().execute(async (trx) => {
      let ok = true;
      // Its items left the bot: not for sale. First, as a purchase takes its locks (the listing,
      // then the balances row), so the two never wait on each other.
      await delistDepositItems(trx, d.id);
      try {
        await applyMovement(trx, { merchantId: d.merchant_id, key: `deposit:${d.id}:late_revert`, kind: 'deposit_late_revert', availableDelta: -d.amount, holdDelta: 0, refType: 'deposit', refId: d.id });
      } catch (err) {
        if (!(err instanceof InsufficientFundsError)) throw err;
        ok = false;
      }
      await insertAudit(trx, {
        merchantId: d.merchant_id, userId: null, actor: 'platform', action: 'deposit_reversed_after_completion', ip: null,
        detail: { deposit_id: d.id, trade_offer_id: change.tradeOfferId, amount: d.amount, recovered: ok },
      });
      return ok;
    });
    log.error({ depositId: d.id, tradeOfferId: change.tradeOfferId, recovered }, recovered
      ? 'completed deposit reversed on the platform: its amount was taken back from the merchant\'s available balance'
      : 'completed deposit reversed on the platform: the merchant\'s available balance does not cover it; operator action needed');
    return d;
  }

  /**
   * The platform shows an accepted trade for a deposit the gateway closed (a late offer after an
   * ambiguous send, an expiry race): the items are with the bot, so the deposit follows the trade
   * — hold or completed, with its ledger movement and webhook — audited and logged for the operator.
   */
  async function follow(d: DepositRow, e: OfferEventOf, change: OfferChange): Promise<DepositRow> {
    const event = e.event === 'accept_hold' ? 'follow_hold' : 'follow_accept';
    const r = await db.transaction().execute(async (trx) => {
      const t = await transitions.transitionIn(trx, d.id, event, {
        set: {
          fail_reason: null,
          trade_offer_id: change.tradeOfferId ?? d.trade_offer_id,
          ...(change.bot ? { bot_id: change.bot.id, bot_name: change.bot.name, bot_platform_id: change.bot.platformId } : {}),
          ...(event === 'follow_hold' ? { hold_end_date: e.holdEndsAt ?? transitions.holdEndFor(d.game) } : {}),
        },
      });
      if (t.ok) {
        await insertAudit(trx, {
          merchantId: d.merchant_id, userId: null, actor: 'platform', action: 'deposit_follows_platform', ip: null,
          detail: { deposit_id: d.id, from: d.status, fail_reason: d.fail_reason, to: t.row.status, trade_offer_id: change.tradeOfferId, amount: d.amount },
        });
      }
      return t;
    });
    if (!r.ok) throw new Error(`deposit ${d.id} could not follow the platform's accepted trade (${r.reason})`);
    log.error({ depositId: d.id, from: d.status, to: r.row.status, tradeOfferId: change.tradeOfferId }, 'deposit closed by the gateway was accepted on the platform: it follows the trade');
    return r.row;
  }

  /** Records the offer as the deposit's (pending → active); an offer the deposit cannot take is withdrawn. */
  async function record(d: DepositRow, offer: SentOffer): Promise<DepositRow> {
    let active: DepositRow | null;
    try {
      active = await transitions.tryApply(d.id, 'send', {
        set: {
          bot_id: offer.bot.id,
          bot_name: offer.bot.name,
          bot_platform_id: offer.bot.platformId,
          trade_offer_id: offer.tradeOfferId,
          trade_offer_expiry_at: offer.expiresAt,
        },
      });
    } catch (err) {
      // Not recorded (database error): the deposit stays pending, its watchdog fails it; the offer
      // is withdrawn (the cancel job checks the deposit did not record it after all).
      await offers.scheduleCancel(d.id, offer.tradeOfferId);
      throw err;
    }
    if (active) return active;
    // The deposit moved on first (the pending watchdog failed it): the offer is not its offer.
    log.warn({ depositId: d.id, tradeOfferId: offer.tradeOfferId }, 'deposit offer sent for a deposit no longer pending: canceling it');
    await offers.scheduleCancel(d.id, offer.tradeOfferId);
    return (await repo.findDepositById(db, d.id))!;
  }

  /**
   * Rules 8–9 of 4.5 (and 4.3): the bot sends the offer within DEPOSIT_TIMEOUT_MS, else failed.
   * A transient refusal (a rate limit, a 5xx: platform/retry.ts) is tried again with jittered
   * backoff while the deadline leaves room; a failure after that keeps its real cause (fail_cause).
   */
  async function perform(d: DepositRow, assets: OfferedAsset[]): Promise<DepositRow> {
    let offer;
    try {
      const req = { depositId: d.id, game: d.game as Game, partner: d.partner!, token: d.token!, assets };
      offer = await retryWithin((remainingMs) => offers.send(platform.sendDepositOffer(req), remainingMs, d.id), {
        deadline: Date.now() + config.depositTimeoutMs, // real time: the merchant's call waits for it
        ...SEND_RETRY,
        retryable: isTransient,
        onRetry: (err, attempt, waitMs) => log.warn({ err, depositId: d.id, attempt, waitMs }, 'deposit offer send refused for now: retried within the deadline'),
      });
    } catch (thrown) {
      const err = thrown instanceof RetriesExhaustedError ? thrown.last : thrown;
      // The platform refused assets the user no longer holds (gone since the commit's check).
      if (err instanceof PlatformAssetsRefusedError) return transitions.failPending(d.id, 'item_not_available');
      // The offer may exist (eresult 16, a timeout, a hang-up): the deposit must not fail while it
      // can still be accepted. It stays pending; its watchdog asks the platform (resolvePending).
      if (platform.resolveOffer && (err instanceof PlatformOfferUncertainError || err instanceof PlatformTimeoutError)) {
        log.warn({ err, depositId: d.id }, 'deposit offer send was ambiguous: the deposit waits for what the platform shows');
        return (await repo.findDepositById(db, d.id))!;
      }
      // Timeouts and errors before dispatch answer in-band: HTTP 200, status failed, service_unavailable.
      const cause = causeOf(thrown);
      log.warn({ err, depositId: d.id, failCause: cause }, 'deposit offer was not sent');
      return transitions.failPending(d.id, 'service_unavailable', undefined, cause);
    }
    return record(d, offer);
  }

  /**
   * The pending watchdog (job deposit_pending_watchdog): a deposit still pending after its
   * perform. Where the platform can say what became of an ambiguous send (resolveOffer), the
   * deposit follows it: the offer found → active; none within the settle window → failed
   * service_unavailable (a later offer is withdrawn on sight); not known yet → look again.
   * Elsewhere (the instance died mid-perform) it fails service_unavailable.
   */
  async function resolvePending(depositId: number): Promise<'done' | { retryAt: Date }> {
    const d = await repo.findDepositById(db, depositId);
    if (d?.status !== 'pending') return 'done';
    const r = platform.resolveOffer ? await platform.resolveOffer('deposit', depositId) : ({ state: 'none' } as const);
    if (r.state === 'unknown') return { retryAt: r.retryAt };
    if (r.state === 'sent') await record(d, r.offer);
    else {
      const cause = platform.resolveOffer ? 'no offer for the deposit on the platform within its settle window' : 'the instance sending the offer stopped before an answer';
      await transitions.tryApply(depositId, 'fail', { failReason: 'service_unavailable', set: { fail_cause: cause } });
    }
    return 'done';
  }

  /**
   * Job deposit_offer_expire: active → canceled once trade_offer_expiry_at has passed — on a real
   * platform only once it shows the offer withdrawn (offerGone); an offer accepted meanwhile is
   * followed instead.
   */
  /**
   * Job deposit_hold_end: hold → completed once hold_end_date has passed — on a real platform
   * only once it says the trade is past its reversal window with the history read past it
   * (holdMayEnd); until then it looks again later (a reversal meanwhile is reported as such).
   */
  async function endHoldIfClear(depositId: number): Promise<'done' | { retryAt: Date }> {
    const d = await repo.findDepositById(db, depositId);
    if (d?.status !== 'hold') return 'done';
    if (platform.holdMayEnd && !(await platform.holdMayEnd({ offer: 'deposit', recordId: depositId, game: (d.game ?? 'csgo') as Game }))) {
      return { retryAt: new Date(deps.clock.now().getTime() + HOLD_RECHECK_MS) };
    }
    await transitions.tryApply(depositId, 'release');
    return 'done';
  }

  async function expireIfGone(depositId: number): Promise<void> {
    const d = await repo.findDepositById(db, depositId);
    if (d?.status !== 'active' || !d.trade_offer_id) return;
    if (await offers.offerGone(depositId, d.trade_offer_id)) await transitions.tryApply(depositId, 'expire');
  }

  return {
    perform,
    resolvePending,
    expireIfGone,
    endHoldIfClear,
    /** Job deposit_cancel_offer. */
    cancelUnrecordedOffer: offers.cancelUnrecorded,
    /**
     * An offer change (port OfferChange; wired in the composition root): accepted → accept_hold
     * (hold, default: the game's hold) or accept; declined → decline; expired → expire; canceled →
     * cancel (canceled_by_gateway); hold_ended → release; reverted → revert. Answers the status view.
     */
    applyOfferChange: async (change: OfferChange) => statusView(await offers.applyChange(change)),
  };
}

export type DepositOfferStage = ReturnType<typeof createDepositOfferStage>;
