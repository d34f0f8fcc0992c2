// The members of steamcommunity (3.50) and steam-tradeoffer-manager (2.13) that the bot driver needs
// and their type declarations (@types) do not carry, or carry wrongly: private fields (underscore),
// undocumented hooks, and public methods declared with the wrong callback. Every such access in
// src/ goes through this file — one narrow interface per library below, each member with why it is
// needed — and a member a library version no longer has fails here with a clear error naming the
// library and the member, never a silent fallback. (steam-session's `_webClient` is reached in
// bot-route.ts, the sign-in's way out.)
import type http from 'node:http';
import type SteamCommunity from 'steamcommunity';
import type TradeOfferManager from 'steam-tradeoffer-manager';
import type SteamID from 'steamid';

/** The options steamcommunity hands to its hook and to `request` for one HTTP request. */
export interface CommunityRequestOptions {
  uri?: string;
  url?: string;
  headers?: Record<string, string>;
  [option: string]: unknown;
}

type RequestCallback = (err: Error | null, response?: { statusCode?: number }, body?: unknown) => void;
type RequestFunction = ((options: CommunityRequestOptions | string, callback?: RequestCallback) => unknown) & Record<string, unknown>;

/** steamcommunity as it is, beyond its declarations. */
interface CommunityInternals {
  /**
   * The `request` (v2) defaults every HTTP call of steamcommunity — and of steam-tradeoffer-manager,
   * which sends through it — is made with: wrapped to give each call the bot's proxy agent.
   * Without it a proxied bot would call the platform from the gateway's own address.
   */
  request?: RequestFunction;
  /**
   * The hook steamcommunity calls before each HTTP request (returning false lets it go on): used to
   * point the requests at a stand-in platform. Without it the bot would call the real hosts.
   */
  onPreHttpRequest?: (requestId: number, source: string, options: CommunityRequestOptions, next: unknown) => boolean;
  /** The cookie jar (keyed by the real host): its session cookies go to a stand-in host too. */
  _jar?: { getCookieString(url: string): string };
  /**
   * The clock offset acceptConfirmationForObject caches (else it asks the real Web API through
   * steam-totp, which no stand-in can answer). Undefined until set: only its use can be checked,
   * which the library-internals test does against the installed version.
   */
  _timeOffset?: number;
  /** Declared with a one-argument callback; it answers the items as the second. */
  getUserInventoryContents(userId: SteamID, appId: number, contextId: number, tradableOnly: boolean, language: string, callback: (err: Error | null, items?: unknown[]) => void): void;
  /** Undeclared public method (steamcommunity 3.49+): acknowledges the new-device trade protection. */
  acknowledgeTradeProtection?: (callback: (err: Error | null) => void) => void;
  /** Declared with a one-argument callback; it answers the response and the body too. */
  httpRequest(options: CommunityRequestOptions, callback: RequestCallback, source: string): void;
}

/** steam-tradeoffer-manager as it is, beyond its declarations. */
interface ManagerInternals {
  /** The web session's access token (set by setCookies): undeclared; the trade history call needs it. */
  accessToken?: string | null;
  apiKey?: string | null;
  /** Declared without its argument: a full update re-reads every offer, not only recent changes. */
  doPoll?: (doFullUpdate?: boolean) => void;
}

function gone(library: string, member: string, what: string): Error {
  return new Error(`${library} has no ${member}: this version cannot ${what}`);
}

const community = (c: SteamCommunity) => c as unknown as CommunityInternals;
const manager = (m: TradeOfferManager) => m as unknown as ManagerInternals;

/** Sends every request of the libraries with the agent `agentOf` picks for its URL (the bot's proxy). */
export function sendCommunityThrough(c: SteamCommunity, agentOf: (uri: string) => http.Agent): void {
  const request = community(c).request;
  if (typeof request !== 'function') throw gone('steamcommunity', 'request', 'send through the bot\'s proxy');
  const through = (options: CommunityRequestOptions | string, callback?: RequestCallback) => {
    const uri = String(typeof options === 'object' ? options.uri ?? options.url : options);
    return request(typeof options === 'object' ? { ...options, agent: agentOf(uri), forever: false } : { uri, agent: agentOf(uri), forever: false }, callback);
  };
  // The defaults' helpers (get, post, jar, ...) stay reachable on the wrapper.
  community(c).request = Object.assign(through, request);
}

/**
 * Runs `rewrite` on every HTTP request of the libraries before it is sent (it may change the URL
 * and headers), and stops the confirmations from asking the real Web API for the clock offset.
 */
export function rewriteCommunityRequests(c: SteamCommunity, rewrite: (options: CommunityRequestOptions) => void): void {
  if (typeof community(c).httpRequest !== 'function') throw gone('steamcommunity', 'httpRequest', 'be pointed at the configured hosts');
  community(c).onPreHttpRequest = (_id, _source, options) => {
    rewrite(options);
    return false;
  };
  // A stand-in platform shares our clock.
  community(c)._timeOffset = 0;
}

/** The session cookies steamcommunity holds for `url` (a Cookie header value). */
export function communityCookies(c: SteamCommunity, url: string): string {
  const jar = community(c)._jar;
  if (!jar || typeof jar.getCookieString !== 'function') throw gone('steamcommunity', '_jar', 'hand its session to the configured hosts');
  return jar.getCookieString(url);
}

/** Every item of one inventory context, as steamcommunity parses it. */
export function userInventory<T>(c: SteamCommunity, userId: SteamID, appId: number, contextId: number, tradableOnly: boolean, callback: (err: Error | null, items?: T[]) => void): void {
  community(c).getUserInventoryContents(userId, appId, contextId, tradableOnly, 'english', (err, items) => callback(err, items as T[] | undefined));
}

export function acknowledgeTradeProtection(c: SteamCommunity, callback: (err: Error | null) => void): void {
  const acknowledge = community(c).acknowledgeTradeProtection;
  if (typeof acknowledge !== 'function') throw gone('steamcommunity', 'acknowledgeTradeProtection', 'acknowledge the trade protection');
  acknowledge.call(c, callback);
}

/** One HTTP request through steamcommunity (its session, hooks and proxy). */
export function communityRequest(c: SteamCommunity, options: CommunityRequestOptions, callback: RequestCallback, source: string): void {
  community(c).httpRequest(options, callback, source);
}

/** The manager's web session access token (undefined without a session). */
export function managerAccessToken(m: TradeOfferManager): string | undefined {
  return manager(m).accessToken ?? undefined;
}

/** Whether the manager has what its poll needs (without it doPoll returns without an event). */
export function managerCanPoll(m: TradeOfferManager): boolean {
  return Boolean(manager(m).accessToken || manager(m).apiKey);
}

/** One poll now (`full`: every offer, not only the recent changes); answered by pollSuccess / pollFailure. */
export function pollNow(m: TradeOfferManager, full: boolean): void {
  const doPoll = manager(m).doPoll;
  if (typeof doPoll !== 'function') throw gone('steam-tradeoffer-manager', 'doPoll', 'poll on the driver\'s timer');
  doPoll.call(m, full);
}

/**
 * Switches off the library's hold-back of unknown sent offers while a send awaits its answer
 * (`_pendingOfferSendResponses`, a private counter). One hung send, or steady sends on a busy bot,
 * would hide a late offer — never withdrawn, never followed. Taking up an offer is idempotent here
 * (by its message, guarded by the record's claim). Throws if the counter is not there.
 */
export function neverHoldBackSentOffers(m: TradeOfferManager): void {
  if (!('_pendingOfferSendResponses' in m)) throw gone('steam-tradeoffer-manager', '_pendingOfferSendResponses', 'stop holding back unknown sent offers');
  Object.defineProperty(m, '_pendingOfferSendResponses', { get: () => 0, set: () => {}, configurable: true });
}

/** An item the offer gives or asks for, by its ids (the library needs nothing else of it). */
export interface OfferItem {
  appid: number;
  contextid: string;
  assetid: string;
}

/** Declared to take a parsed CEconItem; the library reads only the ids. */
export function addItems(offer: ReturnType<TradeOfferManager['createOffer']>, give: OfferItem[], receive: OfferItem[]): void {
  const o = offer as unknown as { addMyItem(item: OfferItem): boolean; addTheirItem(item: OfferItem): boolean };
  for (const it of give) o.addMyItem(it);
  for (const it of receive) o.addTheirItem(it);
}
