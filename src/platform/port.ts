// The trading-platform port: what the gateway needs from the platform its bots trade on.
// Adapters: `sandbox` (src/platform/sandbox, the default simulator) and `steam` (real bots).
// Offer outcomes (accepted, declined, expired, canceled, hold ended, reverted) are reported by the
// adapter as OfferChange to the one handler registered with onOfferChange (wired in context.ts to
// the deposit and purchase services' transitions). The sandbox reports them from its test helpers
// (simulate); the gateway's own deadlines (trade_offer_expiry_at, hold_end_date) stay gateway jobs.
import type { Game } from '../domain/games.js';

/** Platform refusals for a user (spec 7.3), reported to merchants as validation codes. */
export type UserErrorCode =
  | 'trade_link_invalid'
  | 'trade_link_revoked'
  | 'trade_banned'
  | 'profile_private'
  | 'limited_account'
  | 'hold'
  | 'permissions'
  | 'hold_and_permissions';

export const USER_ERROR_FIELD: Record<UserErrorCode, 'partner' | 'token' | 'game'> = {
  trade_link_invalid: 'partner',
  trade_link_revoked: 'token',
  trade_banned: 'partner',
  profile_private: 'partner',
  limited_account: 'partner',
  hold: 'partner',
  permissions: 'game',
  hold_and_permissions: 'partner',
};

export const USER_ERROR_MESSAGE: Record<UserErrorCode, string> = {
  trade_link_invalid: 'trade link is incorrect or expired',
  trade_link_revoked: 'the user reset their trade URL',
  trade_banned: 'the account has a trade ban',
  profile_private: 'the profile is private',
  limited_account: 'the account is limited',
  hold: 'a temporary trade hold is active on the account',
  permissions: 'the inventory for this game is private',
  hold_and_permissions: 'trade hold and inventory permission problems',
};

export class PlatformUserError extends Error {
  constructor(readonly code: UserErrorCode) {
    super(USER_ERROR_MESSAGE[code]);
  }
  get field() {
    return USER_ERROR_FIELD[this.code];
  }
}

/** The platform did not answer (or answered garbage): retryable, never the user's fault. */
export class PlatformUnavailableError extends Error {
  /** transient: a rate limit, a hang-up, a 5xx — worth another attempt within the record's deadline. */
  constructor(message = 'the trading platform is unavailable', readonly transient = false) {
    super(message);
  }
}

/**
 * No bot can take the call: every bot serving the game is out of rotation (or left it during the
 * call: its session died). Still "unavailable" to every rule that retries or fails a record; the
 * merchant API answers it 503 (retry shortly), not 500.
 */
export class NoBotAvailableError extends PlatformUnavailableError {}

/**
 * The platform cannot tell whether the offer was made (eresult 16, a timeout, a hang-up): it may
 * exist or still appear. The record must neither fail nor send again: it waits, and resolveOffer
 * answers later what the platform shows.
 */
export class PlatformOfferUncertainError extends Error {
  constructor(message = 'the platform did not confirm the offer; it may still appear') {
    super(message);
  }
}

/**
 * What the platform shows of a record's offer after an ambiguous send: the offer (found), none
 * (the settle window has passed with no offer: any that appears later is withdrawn on sight;
 * `attempted`: an offer was tried for the record), or not known yet (look again at retryAt).
 */
export type OfferResolution = { state: 'sent'; offer: SentOffer } | { state: 'none'; attempted?: boolean } | { state: 'unknown'; retryAt: Date };

/** Whether the record still wants this offer (checked before a mobile confirmation, and for late offers). */
export type OfferGuard = (offer: 'deposit' | 'purchase', recordId: number, tradeOfferId: string) => Promise<boolean>;

export interface PlatformUser {
  partner: number;
  token: string;
  /** 64-bit platform ID as a decimal string. */
  platformId: string;
  name?: string;
  avatarUrl?: string;
}

export interface PlatformItem {
  assetId: string;
  marketHashName: string;
  classId?: string;
  instanceId?: string;
  /** Doppler-type phase of phased items (priced per phase), decided by domain/phases.ts phaseOf. */
  phase?: string;
  /** The finish's paint index when the platform gives it (steam: asset property 7, "Finish Catalog"). */
  paintIndex?: number;
  /** false: in the inventory but not tradable now (a trade cooldown); absent means tradable. */
  tradable?: boolean;
  /** CS2 asset properties when the platform gives them (steam: inventory asset_properties). */
  float?: number;
  paintSeed?: number;
}

/** An asset a deposit offer asks for, with the item the gateway takes it to be. */
export interface OfferedAsset {
  assetId: string;
  marketHashName: string;
  phase?: string;
}

/**
 * The platform refused an offer because the user does not hold these assets (gone, not tradable, or
 * not the item named). Never retryable as is; a deposit ends failed item_not_available.
 */
export class PlatformAssetsRefusedError extends Error {
  constructor(readonly assetIds: readonly string[]) {
    super(`the user does not hold the assets ${assetIds.join(', ')} as offered`);
  }
}

export interface Bot {
  id: number;
  name: string;
  platformId: string;
}

export interface SentOffer {
  bot: Bot;
  tradeOfferId: string;
  expiresAt: Date;
}

/**
 * A change of an offer we sent, as the platform reports it. The steam adapter would build these
 * from steam-tradeoffer-manager's `sentOfferChanged(offer, oldState)` events (Accepted with or
 * without escrow → accepted + hold/holdEndsAt, Declined, Expired, Canceled, and the escrow ending
 * or being rolled back → hold_ended / reverted), finding the record by its trade offer ID.
 */
export interface OfferChange {
  offer: 'deposit' | 'purchase';
  /** The deposit or purchase ID. */
  recordId: number;
  /** When given, it must be the record's trade offer ID (else the record is reported not found). */
  tradeOfferId?: string;
  /**
   * accepted: the user accepted (hold says whether the platform applied a trade hold);
   * declined: the user declined; expired: the offer ran out; canceled: our side withdrew the offer;
   * hold_ended: the trade hold ended, the items are final; reverted: reversed during the hold.
   */
  change: 'accepted' | 'declined' | 'expired' | 'canceled' | 'hold_ended' | 'reverted';
  /** accepted: whether a trade hold applies; absent → the game's usual hold (HOLD_SECONDS_<GAME> > 0). */
  hold?: boolean;
  /** accepted with a hold: when it ends; absent → now + the game's hold. */
  holdEndsAt?: Date;
  /** The bot whose offer it is (a record that follows a late offer records it). */
  bot?: Bot;
  /** reverted: who reversed the trade (user_reverted / gateway_reverted); absent → user. */
  by?: 'user' | 'gateway';
  /**
   * Sandbox test helpers only: the calling merchant. Another merchant's record is then not found.
   * A real platform never sets it.
   */
  merchantId?: number;
}

/** Applies an offer change; resolves to the updated record's view, or rejects (404 / 409 AppError). */
export type OfferChangeHandler = (change: OfferChange) => Promise<unknown>;

/** An offer change the gateway refused (its record cannot take it) although items may have moved. */
export interface RefusedChange {
  offer: OfferChange['offer'];
  recordId: number;
  tradeOfferId: string;
  change: OfferChange['change'];
  /** The refusal's kind (not_found, invalid_transition, conflict) and message. */
  refusal: string;
  message: string;
  bot?: { id: number; name: string };
}

export interface PurchaseOfferRequest {
  purchaseId: number;
  game: Game;
  partner: number;
  token: string;
  listingId: string;
  assetId?: string;
}

export interface TradingPlatform {
  readonly kind: 'sandbox' | 'steam';
  /** Validates a trade link for a game; throws PlatformUserError or PlatformUnavailableError. */
  checkTradeLink(game: Game, partner: number, token: string): Promise<PlatformUser>;
  /** The user's items for a game (after checkTradeLink's checks); `tradable: false` marks those that cannot move now. */
  loadInventory(game: Game, partner: number, token: string): Promise<PlatformItem[]>;
  /**
   * Sends an offer asking the user for these assets, from one of our bots. Throws
   * PlatformAssetsRefusedError when the user does not hold one of them tradable as the item named.
   */
  sendDepositOffer(req: { depositId: number; game: Game; partner: number; token: string; assets: OfferedAsset[] }): Promise<SentOffer>;
  /** Sends an offer giving the user one item (a catalogue listing) from one of our bots. Idempotent per purchaseId. */
  sendPurchaseOffer(req: PurchaseOfferRequest): Promise<SentOffer>;
  /**
   * Optional: several purchase offers at once (the purchase dispatcher's batches): one promise per
   * request, in the order asked, each settled as sendPurchaseOffer would settle it and on its own
   * (a request that never answers holds up no other). Without it the dispatcher calls
   * sendPurchaseOffer once per purchase.
   */
  sendPurchaseOffers?(reqs: PurchaseOfferRequest[]): Array<Promise<SentOffer>>;
  /**
   * Withdraws an offer we sent (the user can no longer accept it). Used for offers the gateway did
   * not record: a deposit offer that answered after DEPOSIT_TIMEOUT_MS had failed its deposit, a
   * purchase offer that answered after its purchase had failed (timeout_error, gateway_too_slow).
   * Idempotent: an offer already canceled (or no longer active) resolves. The steam adapter would
   * look the offer up (manager.getOffer(tradeOfferId)) and call steam-tradeoffer-manager's
   * `offer.cancel()`, resolving when the offer is no longer Active. Throws PlatformUnavailableError
   * when the platform does not answer (the caller retries).
   */
  cancelOffer(req: { offer: 'deposit' | 'purchase'; recordId: number; tradeOfferId: string }): Promise<void>;
  /**
   * Real platforms (optional): withdraws a record's offer at its expiry and answers what the
   * platform shows afterwards — 'gone' (canceled, expired, declined: the record may close) or
   * 'accepted' (the user was first: the acceptance is reported as a change and the record follows
   * it). Throws when the platform does not answer: the record stays open and the caller retries.
   * Without it the gateway's clock alone expires offers (the sandbox).
   */
  expireOffer?(req: { offer: 'deposit' | 'purchase'; recordId: number; tradeOfferId: string }): Promise<'gone' | 'accepted'>;
  /**
   * Real platforms (optional): whether a deposit's hold may end — its trade is past the platform's
   * reversal window and the trade history has been read past that point without a reversal.
   * Without it the gateway's hold_end_date alone decides.
   */
  holdMayEnd?(req: { offer: 'deposit' | 'purchase'; recordId: number; game: Game }): Promise<boolean>;
  /** Real platforms (optional): a record's offer after an ambiguous send (PlatformOfferUncertainError). */
  resolveOffer?(offer: 'deposit' | 'purchase', recordId: number): Promise<OfferResolution>;
  /** Real platforms (optional): registers the guard asked before confirming or keeping an offer. */
  onOfferGuard?(guard: OfferGuard): void;
  /**
   * Registers the one handler for offer changes (a second call replaces it). The adapter calls it
   * for every change of an offer it sent; the steam adapter would call it from
   * steam-tradeoffer-manager's `sentOfferChanged` events and retry a failed handler later.
   */
  onOfferChange(handler: OfferChangeHandler): void;
  /**
   * Real platforms (optional): registers how a refused change is recorded for the operator (an
   * audit entry). The adapter calls it once per refused change, before it counts it as reported.
   */
  onChangeRefused?(record: (refused: RefusedChange) => Promise<void>): void;
  /** Real platforms (optional): the changes refused since this instance started, by refusal kind (a metric). */
  readonly refusedChanges?: Readonly<Record<string, number>>;
  /** Sign-ins tried on the platform per bot name and outcome (ok, failed, rate_limited), counted by this instance since it started (steam; read at scrape time). */
  signIns?: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /**
   * Sandbox only (undefined on a real platform): report `change` as if the platform had, and
   * answer the handler's result (the updated record) or its error. Used by the test helpers.
   */
  simulate?(change: OfferChange): Promise<unknown>;
  /**
   * Real platforms only (optional): signs an operator-managed bot in and reports what it can do
   * (`gateway bot check`). A bot that cannot trade is taken out of rotation by the adapter.
   */
  checkBot?(botId: number): Promise<BotCheckReport>;
  /** An operator changed a bot (enabled, disabled, games): the adapter takes it up now, not at its next lease round. */
  botsChanged?(): Promise<void>;
  /** Real platforms only (optional): starts driving bots (leases, polls); the CLI never calls it. */
  start?(): Promise<void>;
  /** Stops every bot driver this instance runs and releases their leases. */
  stop?(): Promise<void>;
  /** The bots' holdings and trades on the platform (both adapters; optional for test doubles). */
  botInventory?: BotLedgerReader['botInventory'];
  botTrades?: BotLedgerReader['botTrades'];
}

/** An item one of our bots holds, as the platform shows it (the catalogue sync, reconciliation). */
export interface BotItem extends PlatformItem {
  /** In one of the bot's active offers: it may leave at any moment. */
  inOffer?: boolean;
  /** The deposit it arrived in, when the platform adapter knows (its listing comes from that deposit). */
  depositId?: number;
  /** With depositId: the asset id it had in the user's inventory (the deposit's asset id). */
  depositAssetId?: string;
}

/** A trade one of our bots made, as the platform's trade history shows it. */
export interface PlatformTrade {
  botId: number;
  tradeId: string;
  /** The record our offer's message names, when the trade came from one of our offers. */
  record?: { kind: 'deposit' | 'purchase'; recordId: number };
  tradeOfferId?: string;
  at: Date;
  /** complete: the items moved; in_escrow: they move when a hold ends; reversed: moved, then rolled back; failed: nothing moved. */
  status: 'complete' | 'in_escrow' | 'reversed' | 'failed';
}

/**
 * What the bots hold and what they traded, read from the platform (not from the gateway's
 * records): `gateway bot sync` lists the stock, `gateway reconcile` compares both with the records.
 */
export interface BotLedgerReader {
  /** Every item the bot holds for a game; `tradable: false` marks those in trade protection or a cooldown. */
  botInventory(botId: number, game: Game): Promise<BotItem[]>;
  /** The bot's trades since `since` (newest first), reversals included. */
  botTrades(botId: number, since: Date): Promise<PlatformTrade[]>;
}

export interface BotCheckReport {
  signed_in: boolean;
  platform_id?: string;
  can_trade: boolean;
  trade_protection_acknowledged: boolean;
  confirmations_reachable: boolean;
  /** Tradable items per game the bot serves. */
  inventory?: Record<string, number>;
  /** Drift: asset ids backing listings for sale that the bot's tradable inventory does not show. */
  listed_but_missing?: string[];
  problems: string[];
}

/** 76561197960265728 + partner: the 64-bit ID of a 32-bit account ID. */
export function platformIdOf(partner: number): string {
  return (76561197960265728n + BigInt(partner)).toString();
}
