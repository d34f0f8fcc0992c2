// Pure translation tables between the platform's own shapes (steam-tradeoffer-manager offers,
// getUserDetails answers, send errors, IEconService/GetTradeHistory, community inventories) and
// the port's vocabulary. No I/O here: the unit tests feed these the platform's JSON.
import type { Game } from '../../domain/games.js';
import { parseInspectLink } from '../../domain/inspect-link.js';
import { FINISH_CATALOG_PROPERTY, phaseOf } from '../../domain/phases.js';
import type { OfferChange, PlatformItem, UserErrorCode } from '../port.js';

/** ETradeOfferState (steam-tradeoffer-manager/resources/ETradeOfferState.js). */
export const OfferState = {
  Invalid: 1, Active: 2, Accepted: 3, Countered: 4, Expired: 5, Canceled: 6, Declined: 7,
  InvalidItems: 8, CreatedNeedsConfirmation: 9, CanceledBySecondFactor: 10, InEscrow: 11,
} as const;

/** ETradeStatus of GetTradeHistory; 12 (trade protection rollback, 2025) is not in the library's enum yet. */
export const TradeStatus = { Complete: 3, Failed: 4, InEscrow: 10, EscrowRollback: 11, TradeProtectionRollback: 12 } as const;

export const APP_IDS: Record<Game, number> = { csgo: 730, rust: 252490, dota2: 570, tf2: 440 };
/** Context 2 holds tradable items; items received in a CS2 trade sit in 16 during the 7-day protection. */
export const TRADABLE_CONTEXT = '2';
export const PROTECTED_CONTEXT = '16';

export type ChangeKind = Pick<OfferChange, 'change' | 'hold' | 'holdEndsAt' | 'by'>;

/**
 * What an offer moving from `from` (the last state reported to the gateway; null: none yet) to
 * `to` means to the gateway, or null when nothing is to be reported (still Active, awaiting
 * confirmation). InEscrow is accepted-with-hold until escrowEnds; InEscrow → Accepted is the
 * hold's end; a cancel arriving from InEscrow is the escrow being rolled back.
 */
export function offerChangeOf(kind: 'deposit' | 'purchase', from: number | null, to: number, escrowEnds: Date | null, protection: { marginMs: number; now: Date } = { marginMs: 0, now: new Date() }): ChangeKind | null {
  if (from === to) return null;
  switch (to) {
    case OfferState.Active:
    case OfferState.CreatedNeedsConfirmation:
      return null;
    case OfferState.InEscrow:
      return { change: 'accepted', hold: true, ...(escrowEnds ? { holdEndsAt: escrowEnds } : {}) };
    case OfferState.Accepted:
      // From escrow the items are now final; otherwise accepted with the game's usual hold (CS2: the
      // 7-day trade protection window, HOLD_SECONDS_CSGO).
      // When Steam reports the trade's own protection end (its items' release time: an escrow end on
      // an Accepted offer), the hold ends from it, plus the margin to read a reversal in the history.
      if (from === OfferState.InEscrow) return { change: 'hold_ended' };
      if (escrowEnds && escrowEnds > protection.now) return { change: 'accepted', hold: true, holdEndsAt: new Date(escrowEnds.getTime() + protection.marginMs) };
      return { change: 'accepted' };
    case OfferState.Declined:
    case OfferState.Countered:
      return { change: 'declined' };
    case OfferState.Expired:
      return { change: 'expired' };
    case OfferState.Canceled:
    case OfferState.CanceledBySecondFactor:
      if (from === OfferState.InEscrow) return { change: 'reverted', by: reverterOf(kind) };
      return { change: 'canceled' };
    case OfferState.InvalidItems:
    case OfferState.Invalid:
      // The items are gone (moved, or the offer is void): it can never be accepted.
      return { change: 'canceled' };
    default:
      return null;
  }
}

/** Only the side giving items can reverse a trade: the user on a deposit, our bot on a purchase. */
export function reverterOf(kind: 'deposit' | 'purchase'): 'user' | 'gateway' {
  return kind === 'deposit' ? 'user' : 'gateway';
}

/** Our offer message: names the record so a lost send answer can be found on the platform. */
export function offerMessage(kind: 'deposit' | 'purchase', recordId: number): string {
  return `[gw:${kind}:${recordId}] ${kind === 'deposit' ? 'Deposit' : 'Purchase'} #${recordId}`;
}

export function recordOfMessage(message: string | undefined | null): { kind: 'deposit' | 'purchase'; recordId: number } | null {
  const m = /^\[gw:(deposit|purchase):(\d{1,18})\]/.exec(message ?? '');
  return m ? { kind: m[1] as 'deposit' | 'purchase', recordId: Number(m[2]) } : null;
}

/** getUserDetails' `them` (the partner side), as steam-tradeoffer-manager answers it. */
export interface PartnerDetails {
  escrowDays?: number;
  probation?: boolean;
  contexts?: Record<string, unknown>;
  personaName?: string;
  avatarFull?: string;
}

/** The refusal a partner's trade details imply for a game, or null when the user can trade. */
export function userErrorOfDetails(game: Game, them: PartnerDetails): UserErrorCode | null {
  if (them.probation) return 'trade_banned';
  const hold = (them.escrowDays ?? 0) > 0;
  // The partner's app contexts list the games whose inventory we may see; absent → private for us.
  const visible = !them.contexts || Object.prototype.hasOwnProperty.call(them.contexts, String(APP_IDS[game]));
  if (hold && !visible) return 'hold_and_permissions';
  if (hold) return 'hold';
  if (!visible) return 'permissions';
  return null;
}

/** An error of getUserDetails / inventory / send that is the user's, or null (ours or the platform's). */
export function userErrorOfMessage(message: string): UserErrorCode | null {
  if (/trade url is no longer valid/i.test(message)) return 'trade_link_revoked';
  if (/profile is private/i.test(message)) return 'profile_private';
  if (/trade ban|not available to trade/i.test(message)) return 'trade_banned';
  if (/limited (user )?account/i.test(message)) return 'limited_account';
  if (/profile could not be found|invalid trade (url|link)|specified profile/i.test(message)) return 'trade_link_invalid';
  return null;
}

/** A send (or cancel / confirmation) error as steam-tradeoffer-manager reports it (Error with cause, eresult). */
export interface SteamError {
  message: string;
  cause?: unknown;
  eresult?: number | string;
  code?: number;
}

export type SendFailure =
  | { kind: 'user'; code: UserErrorCode }
  /** The bot cannot trade (NewDevice, a lock, its own ban): out of rotation, tell the operator. */
  | { kind: 'bot'; reason: string }
  /**
   * eresult 26 (Revoked) on a send: an asset in the offer is no longer in its owner's inventory
   * (traded away, already in another offer, gone non-tradable) — the platform's answer for items
   * that are not there to trade. A revoked trade link comes with its own message (checked first).
   */
  | { kind: 'assets_unavailable' }
  /** Too many requests: back off and try again. */
  | { kind: 'rate_limited' }
  /** The offer may exist (eresult 16 Timeout, a lost answer): look it up before any resend. */
  | { kind: 'uncertain' }
  /** The platform refused for now (busy item server, session): retryable, nothing was sent. */
  | { kind: 'unavailable' };

const ERESULT = { AccessDenied: 15, Timeout: 16, ServiceUnavailable: 20, LimitExceeded: 25, Revoked: 26 } as const;

export function classifySendError(err: SteamError): SendFailure {
  const eresult = err.eresult === undefined ? undefined : Number(err.eresult);
  if (err.code === 429 || /HTTP error 429/.test(err.message)) return { kind: 'rate_limited' };
  if (err.cause === 'NewDevice') return { kind: 'bot', reason: 'NewDevice: the account signed in from a new device and cannot trade yet' };
  if (err.cause === 'TradeBan') return { kind: 'user', code: 'trade_banned' };
  if (err.cause === 'TargetCannotTrade') return { kind: 'user', code: 'trade_banned' };
  if (err.cause === 'OfferLimitExceeded') return { kind: 'unavailable' };
  if (err.cause === 'ItemServerUnavailable') return { kind: 'unavailable' };
  if (/trade url is no longer valid/i.test(err.message)) return { kind: 'user', code: 'trade_link_revoked' };
  if (eresult === ERESULT.Revoked) return { kind: 'assets_unavailable' };
  if (eresult === ERESULT.AccessDenied) return { kind: 'user', code: 'trade_link_invalid' };
  if (eresult === ERESULT.Timeout) return { kind: 'uncertain' };
  if (eresult === ERESULT.ServiceUnavailable || eresult === ERESULT.LimitExceeded) return { kind: 'unavailable' };
  const user = userErrorOfMessage(err.message);
  if (user) return { kind: 'user', code: user };
  if (/Not Logged In|HTTP error 40[13]/.test(err.message)) return { kind: 'unavailable' };
  // Anything else (socket hang up, 5xx, garbage): the request may have reached the platform.
  return { kind: 'uncertain' };
}

/** A trade of IEconService/GetTradeHistory (include_failed=1). */
export interface HistoryTrade {
  tradeid: string;
  steamid_other?: string;
  time_init: number;
  status: number;
  rollback_trade?: string;
}

/**
 * Trade ids the history shows as reversed: a trade with status 12 (trade protection rollback) or
 * 11 (escrow rollback), and the original of every trade whose `rollback_trade` names it.
 */
export function reversedTradeIds(trades: readonly HistoryTrade[]): string[] {
  const out = new Set<string>();
  for (const t of trades) {
    if (t.status === TradeStatus.TradeProtectionRollback || t.status === TradeStatus.EscrowRollback) out.add(String(t.tradeid));
    if (t.rollback_trade && t.rollback_trade !== '0') out.add(String(t.rollback_trade));
  }
  return [...out];
}

/** A community inventory item (steamcommunity's CEconItem) as far as the gateway reads it. */
export interface CommunityItem {
  assetid?: string;
  id?: string;
  classid?: string;
  instanceid?: string;
  market_hash_name?: string;
  tradable?: boolean | number;
  descriptions?: { value?: string; name?: string }[];
  tags?: { category?: string; internal_name?: string; localized_tag_name?: string; name?: string }[];
  /**
   * CS2 (2025): per-asset properties (the inventory's top-level asset_properties, joined by asset
   * id): 1 = pattern template (paint seed), 2 = wear rating (float), 6 = item certificate,
   * 7 = finish catalog (the paint index, which names a Doppler phase).
   */
  asset_properties?: { propertyid: number; int_value?: string; float_value?: string; string_value?: string; name?: string }[];
  /**
   * When the item's trade protection (or cooldown) ends, as steamcommunity's CEconItem gives it: the
   * inventory's item_expiration, else (context 2) its "Tradable/Marketable After …" line; an ISO date.
   */
  cache_expiration?: string;
  /** The class's actions: CS2's "Inspect in Game…" link, with %assetid%, %owner_steamid% or %propid:N% to fill in. */
  actions?: { link?: string; name?: string }[];
}

function assetProperties(it: CommunityItem): { float?: number; paintSeed?: number; paintIndex?: number } {
  const out: { float?: number; paintSeed?: number; paintIndex?: number } = {};
  for (const p of it.asset_properties ?? []) {
    if (p.propertyid === 2 && p.float_value !== undefined && Number.isFinite(Number(p.float_value))) out.float = Number(p.float_value);
    if (p.propertyid === 1 && p.int_value !== undefined && /^\d+$/.test(p.int_value)) out.paintSeed = Number(p.int_value);
    if (p.propertyid === FINISH_CATALOG_PROPERTY && p.int_value !== undefined && /^\d{1,9}$/.test(p.int_value)) out.paintIndex = Number(p.int_value);
  }
  return out;
}

/**
 * The item's inspect link with its placeholders filled in (%assetid%, %owner_steamid%, %propid:N%:
 * asset property N's value, e.g. 6, the item certificate that the 2026 links carry), or undefined.
 */
export function inspectLinkOf(it: CommunityItem, ownerSteamId = '0'): string | undefined {
  const link = (it.actions ?? []).map((a) => a.link ?? '').find((l) => /csgo_econ_action_preview/i.test(l));
  if (!link) return undefined;
  const prop = (id: number) => {
    const p = (it.asset_properties ?? []).find((x) => x.propertyid === id);
    return p?.string_value ?? p?.int_value ?? p?.float_value ?? '';
  };
  return link.replace(/%assetid%/g, String(it.assetid ?? it.id ?? '')).replace(/%owner_steamid%/g, ownerSteamId).replace(/%propid:(\d+)%/g, (_m, id: string) => prop(Number(id)));
}

/**
 * Float and paint seed: the asset properties (2: wear, 1: pattern) where the inventory sends them,
 * no inspect link needed; a field they leave out from the inspect link (a self-contained CS2 link
 * decodes to both; a classic one names only the asset).
 */
function wearOf(it: CommunityItem, props: { float?: number; paintSeed?: number }): { float?: number; paintSeed?: number } {
  if (props.float !== undefined && props.paintSeed !== undefined) return { float: props.float, paintSeed: props.paintSeed };
  const fromLink = parseInspectLink(inspectLinkOf(it));
  const float = props.float ?? fromLink.float;
  const paintSeed = props.paintSeed ?? fromLink.paint_seed;
  return { ...(float !== undefined ? { float } : {}), ...(paintSeed !== undefined ? { paintSeed } : {}) };
}

/** Tradable items only, as the port's PlatformItem (the phase from the paint index, else from the tags or descriptions). */
export function platformItemsOf(items: readonly CommunityItem[]): PlatformItem[] {
  const out: PlatformItem[] = [];
  for (const it of items) {
    if (!(it.tradable === true || it.tradable === 1) || !it.market_hash_name) continue;
    const assetId = String(it.assetid ?? it.id);
    const props = assetProperties(it);
    const texts = [...(it.tags ?? []).map((t) => t.localized_tag_name ?? t.name ?? ''), ...(it.descriptions ?? []).map((d) => d.value ?? '')];
    const phase = phaseOf({ marketHashName: it.market_hash_name, paintIndex: props.paintIndex, texts });
    out.push({ assetId, marketHashName: it.market_hash_name, classId: it.classid, instanceId: it.instanceid, ...(phase ? { phase } : {}), ...props, ...wearOf(it, props) });
  }
  return out;
}

/**
 * Each item's own protection release time among `items` (a context's inventory), by asset id: those
 * whose release time the platform shows (a valid date), the others left out.
 */
export function protectionEndsOf(items: readonly CommunityItem[]): Map<string, Date> {
  const out = new Map<string, Date>();
  for (const it of items) {
    const at = it.cache_expiration ? new Date(it.cache_expiration) : undefined;
    if (at && Number.isFinite(at.getTime())) out.set(String(it.assetid ?? it.id), at);
  }
  return out;
}
