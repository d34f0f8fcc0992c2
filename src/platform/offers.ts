// The offer layer over the platform port, shared by deposits and purchases:
//   - the deadline: a platform call answers within its time or fails with PlatformTimeoutError;
//   - an offer sent too late, or never recorded by its record, is withdrawn (a job per feature,
//     so a platform that fails the cancel is asked again);
//   - offer changes the platform reports become the record's state-machine events.
// A feature gives its record lookups and its schedule…() function; the rules live here once.
import type { Logger } from 'pino';
import { isDatabaseUnavailable, type Db, type Trx } from '../db/database.js';
import type { Clock } from '../domain/clock.js';
import { AppError, invalidTransition, notFound } from '../domain/errors.js';
import { withDeadline } from '../domain/deadline.js';
import type { OfferChange, SentOffer, TradingPlatform } from './port.js';

/** The platform did not answer within the allowed time. */
export class PlatformTimeoutError extends Error {}

/** Resolves like `p`, or rejects with PlatformTimeoutError after `ms` (domain/deadline.ts). */
export function platformDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  return withDeadline(p, ms, () => new PlatformTimeoutError(`the trading platform did not answer within ${ms} ms`));
}

/** The state-machine events an offer change becomes (the same verbs for deposits and purchases). */
export type OfferEvent = 'accept' | 'accept_hold' | 'decline' | 'expire' | 'cancel' | 'release' | 'revert';

/** The sandbox helper action of each change: 409 messages name it ("cannot accept from status hold"). */
export const OFFER_CHANGE_ACTION: Record<OfferChange['change'], string> = {
  accepted: 'accept',
  declined: 'decline',
  expired: 'expire',
  canceled: 'cancel',
  hold_ended: 'release',
  reverted: 'revert',
};

export interface OfferEventOf {
  event: OfferEvent;
  /** revert: user_reverted / gateway_reverted. */
  failReason?: 'user_reverted' | 'gateway_reverted';
  /** accept_hold: when the platform said the hold ends (else the feature's default). */
  holdEndsAt?: Date;
}

/** The event of a change; an acceptance is a hold when the platform says so, else when the game has one. */
export function offerEventOf(change: OfferChange, gameHoldSeconds: number): OfferEventOf {
  switch (change.change) {
    case 'accepted':
      return (change.hold ?? gameHoldSeconds > 0) ? { event: 'accept_hold', holdEndsAt: change.holdEndsAt } : { event: 'accept' };
    case 'declined':
      return { event: 'decline' };
    case 'expired':
      return { event: 'expire' };
    case 'canceled':
      return { event: 'cancel' };
    case 'hold_ended':
      return { event: 'release' };
    case 'reverted':
      return { event: 'revert', failReason: change.by === 'gateway' ? 'gateway_reverted' : 'user_reverted' };
  }
}

/** What the offer layer needs to know of a deposit or purchase. */
export interface OfferRecord<S extends string = string> {
  status: S;
  trade_offer_id: string | null;
}

/** A transition's outcome, as the feature's transitions module answers it (never thrown). */
export type TransitionResult<R> = { ok: true; row: R } | { ok: false; reason: 'not_found' } | { ok: false; reason: 'invalid_transition'; current: string };

export interface OfferFeature<R extends OfferRecord> {
  kind: OfferChange['offer'];
  /** The record, scoped to a merchant when given (another merchant's is not found). */
  find(recordId: number, merchantId?: number): Promise<R | undefined>;
  /** The game's hold seconds of the record (decides accept vs accept_hold). */
  gameHoldSeconds(record: R): number;
  /** Applies the event as the record's transition. */
  apply(record: R, e: OfferEventOf, merchantId: number | undefined): Promise<TransitionResult<R>>;
  /** Adds the cancel job of an unrecorded offer (runAt: now when absent). */
  scheduleCancel(db: Db | Trx, recordId: number, tradeOfferId: string, runAt?: Date): Promise<void>;
  /** How long to wait before looking again at a record still pending. */
  pendingRetryMs: number;
  /**
   * The platform shows an accepted trade for a record the gateway closed (failed / canceled): the
   * record follows the trade where its statuses can, else the operator is alerted. Audited.
   */
  follow(record: R, e: OfferEventOf, change: OfferChange): Promise<R>;
  /**
   * The platform shows a reversal of a trade whose record already completed (seen after the hold
   * ended): recorded against the merchant where the feature can, the operator alerted. Audited.
   */
  reversedAfterCompletion(record: R, change: OfferChange): Promise<R>;
  /**
   * The record is still pending while the platform reports a change of an offer it knows for it (a
   * late offer after an ambiguous send): the record asks the platform for its offer now and records
   * it (pending → active), so the change is taken in this poll, not after the next pending sweep.
   */
  resolvePending?(recordId: number): Promise<unknown>;
}

/**
 * A refusal of an offer change the record already agrees with: it stands where the change leads
 * (the change reported again), or the change is of another offer and moved nothing. The same
 * error as any refusal (kind, answer); a platform adapter need not alert anyone about it.
 */
export class ChangeAlreadyTaken extends AppError {}

/** The statuses in which a record has already taken each event (the one it leads to, or one after it). */
const TAKEN: Record<OfferEvent, readonly string[]> = {
  accept: ['completed', 'reverted'],
  accept_hold: ['hold', 'completed', 'reverted'],
  decline: ['canceled'],
  expire: ['canceled'],
  cancel: ['canceled'],
  release: ['completed'],
  revert: ['reverted'],
};
/** Offer endings without a trade: on an offer that is not the record's, nothing moved. */
const NO_TRADE: readonly OfferEvent[] = ['decline', 'expire', 'cancel'];

const taken = (err: AppError) => new ChangeAlreadyTaken(err.kind, err.message, err.data);

/** Closed by the gateway, yet an offer made for it may have been accepted on the platform. */
const CLOSED = ['failed', 'canceled'];

export interface OfferDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  platform: Pick<TradingPlatform, 'cancelOffer' | 'expireOffer'>;
}

export function createOffers<R extends OfferRecord>(deps: OfferDeps, feature: OfferFeature<R>) {
  const { db, clock, log, platform } = deps;
  const idKey = `${feature.kind}Id`;

  /** Enqueues the withdrawal of an offer the record may not have recorded; never throws (logs instead). */
  async function scheduleCancel(recordId: number, tradeOfferId: string): Promise<void> {
    try {
      await feature.scheduleCancel(db, recordId, tradeOfferId);
    } catch (err) {
      // With the database away: a warning (its record's retry or watchdog settles the offer later).
      log[isDatabaseUnavailable(err) ? 'warn' : 'error']({ err, [idKey]: recordId, tradeOfferId }, `could not schedule the cancel of an unrecorded ${feature.kind} offer`);
    }
  }

  return {
    scheduleCancel,

    /**
     * Sends an offer within `ms`. On timeout the call goes on: an offer it still sends is never
     * recorded by this attempt, so the user must not be able to accept it — it is withdrawn
     * (unless the record adopts it: the cancel job checks). Rejects like the call, or with
     * PlatformTimeoutError.
     */
    send(sending: Promise<SentOffer>, ms: number, recordId: number): Promise<SentOffer> {
      return platformDeadline(sending, ms).catch((err: unknown) => {
        if (err instanceof PlatformTimeoutError) {
          sending.then(
            (late) => {
              log.warn({ [idKey]: recordId, tradeOfferId: late.tradeOfferId }, `${feature.kind} offer answered after its deadline: canceling it`);
              return scheduleCancel(recordId, late.tradeOfferId);
            },
            () => {},
          );
        }
        throw err;
      });
    },

    /**
     * Job <feature>_cancel_offer: withdraws `tradeOfferId` unless the record recorded it as its
     * offer. A record still pending may yet settle (its send or watchdog is running): look again later.
     */
    async cancelUnrecorded(recordId: number, tradeOfferId: string): Promise<'done' | { retryAt: Date }> {
      const cur = await feature.find(recordId);
      if (cur?.status === 'pending') return { retryAt: new Date(clock.now().getTime() + feature.pendingRetryMs) };
      if (cur && cur.trade_offer_id === tradeOfferId) return 'done';
      await platform.cancelOffer({ offer: feature.kind, recordId, tradeOfferId });
      log.info({ [idKey]: recordId, tradeOfferId, status: cur?.status }, `unrecorded ${feature.kind} offer canceled`);
      return 'done';
    },

    /**
     * Whether a record whose offer ran out may close now: on a real platform only once the
     * platform shows the offer withdrawn (the cancel may fail while the user accepts — then the
     * record stays open and follows the acceptance the poll reports). Throws when the platform
     * does not answer (a deposit's expiry job retries; a purchase's expiry sweep looks again later).
     */
    async offerGone(recordId: number, tradeOfferId: string): Promise<boolean> {
      if (!platform.expireOffer) return true;
      const r = await platform.expireOffer({ offer: feature.kind, recordId, tradeOfferId });
      if (r === 'accepted') log.warn({ [idKey]: recordId, tradeOfferId }, `${feature.kind} offer accepted at its expiry: the record follows the acceptance`);
      return r === 'gone';
    },

    /**
     * Applies an offer change the platform reported (the sandbox: its test helpers) as the record's
     * transition. 404 for an unknown record (or another merchant's, when change.merchantId is set,
     * or another offer than the record's), 409 invalid transition naming the helper action.
     */
    async applyChange(change: OfferChange): Promise<R> {
      const { recordId, merchantId } = change;
      let record = await feature.find(recordId, merchantId);
      if (!record) throw notFound();
      if (merchantId === undefined && change.tradeOfferId !== undefined && record.status === 'pending' && record.trade_offer_id !== change.tradeOfferId && feature.resolvePending) {
        // A late offer the platform knows for this pending record: the record takes it up first.
        await feature.resolvePending(recordId);
        record = (await feature.find(recordId)) ?? record;
      }
      const e = offerEventOf(change, feature.gameHoldSeconds(record));
      // The platform's own report (never a sandbox helper's) of an accepted trade for a record the
      // gateway closed: the record follows the trade.
      const fromPlatform = merchantId === undefined && change.tradeOfferId !== undefined;
      const followsTrade = fromPlatform && (e.event === 'accept' || e.event === 'accept_hold') && CLOSED.includes(record.status);
      if (change.tradeOfferId !== undefined && record.trade_offer_id !== change.tradeOfferId) {
        if (followsTrade && record.trade_offer_id === null) return feature.follow(record, e, change);
        // A late offer of a record still pending: it is adopted by the record first (resolveOffer); retried.
        if (fromPlatform && record.status === 'pending') throw new Error(`${feature.kind} ${recordId} has not recorded offer ${change.tradeOfferId} yet`);
        throw NO_TRADE.includes(e.event) ? taken(notFound()) : notFound();
      }
      if (followsTrade) return feature.follow(record, e, change);
      if (fromPlatform && e.event === 'revert' && record.status === 'completed') return feature.reversedAfterCompletion(record, change);
      const r = await feature.apply(record, e, merchantId);
      if (r.ok) return r.row;
      if (r.reason === 'not_found') throw notFound();
      const refused = invalidTransition(r.current, OFFER_CHANGE_ACTION[change.change]);
      throw TAKEN[e.event].includes(r.current) ? taken(refused) : refused;
    },
  };
}

export type Offers<R extends OfferRecord> = ReturnType<typeof createOffers<R>>;
