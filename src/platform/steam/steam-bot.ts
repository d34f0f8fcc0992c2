// One bot's driver: steamcommunity + steam-tradeoffer-manager signed in with a web session,
// every call through the per-endpoint backoff and a timeout, re-login on session expiry, the
// platform hosts rewritten to the configured ones (a stand-in platform for staging and tests).
import SteamCommunity from 'steamcommunity';
import TradeOfferManager from 'steam-tradeoffer-manager';
import SteamID from 'steamid';
import SteamTotp from 'steam-totp';
import type { SteamSettings } from '../../config.js';
import type { Backoff } from './backoff.js';
import { SignInRateLimitedError, type SessionProvider, type WebSession } from './session.js';
import { withDeadline } from '../../domain/deadline.js';
import { proxyAgents } from './bot-route.js';
import { acknowledgeTradeProtection, addItems, communityCookies, communityRequest, managerAccessToken, managerCanPoll, neverHoldBackSentOffers, pollNow, rewriteCommunityRequests, sendCommunityThrough, userInventory } from './library-internals.js';
import { type CommunityItem, type HistoryTrade, type PartnerDetails } from './steam-mapping.js';

export interface DriverBot {
  id: number;
  name: string;
  platformId: string;
  accountName: string;
  password: string;
  sharedSecret: string;
  identitySecret: string;
  refreshToken?: string;
  /** A stored web session (the driver's last working one, else the operator's): used as is on the first sign-in (see signIn). */
  webCookies?: string[];
  pollData?: Record<string, unknown>;
  /** The bot's own outbound proxy: every call of the bot, its sign-in included, leaves through it. */
  proxy?: string;
}

export interface OfferSnapshot {
  id: string;
  state: number;
  message: string;
  tradeId: string | null;
  escrowEnds: Date | null;
  isOurOffer: boolean;
}

export interface DriverEvents {
  /** A sent offer changed state (steam-tradeoffer-manager's sentOfferChanged / unknownOfferSent). */
  offerChanged(offer: OfferSnapshot): Promise<void>;
  pollData(data: Record<string, unknown>): Promise<void>;
  refreshToken(token: string): Promise<void>;
  /** The stored web session now (the operator may have replaced it since the driver started). */
  webCookies?(): Promise<string[] | undefined>;
  /** A sign-in gave a new web session: kept for the bot's next driver (a restart, a lease move). */
  webSession?(session: WebSession): Promise<void>;
  /** A sign-in on the platform was tried (counted per bot: sign-ins are spent carefully). */
  signInTried?(outcome: 'ok' | 'failed' | 'rate_limited'): void;
  /** The session's state changed, or a live session answered again (see SessionState). */
  session?(state: SessionState): void;
}

/**
 * A driver's session as every reader sees it (written to the bots row by steam-drivers.ts):
 * live once a signed-in call went through with it; error and retryAt while it has none or a
 * sign-in backs off.
 */
export interface SessionState {
  live: boolean;
  /** The last signed-in call that went through. */
  at?: Date;
  error: string | null;
  retryAt: Date | null;
}

/**
 * Sign-in retries after a failure: 30 × STEAM_BACKOFF_BASE_MS (30 s by default) doubling to 30 min,
 * jittered, so a lost session never hammers the login (the platform locks accounts for less).
 */
const SIGN_IN_BACKOFF = { factor: 30, maxMs: 30 * 60_000 };

export class DriverTimeoutError extends Error {}

const DEFAULT_COMMUNITY = 'https://steamcommunity.com';
const DEFAULT_API = 'https://api.steampowered.com';

/** Node-style callback → promise. */
function cb<T>(fn: (done: (err: Error | null, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value as T))));
}

function timeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return withDeadline(p, ms, () => new DriverTimeoutError(`${what}: no answer within ${ms} ms`));
}

export const isRateLimited = (err: unknown) => {
  const e = err as { code?: number; message?: string };
  return e?.code === 429 || /HTTP error 429/.test(e?.message ?? '');
};
const isSignedOut = (err: unknown) => /Not Logged In|HTTP error 401|Access is denied|HTTP error 403/.test((err as Error)?.message ?? '') ||
  /Access is denied/.test(String((err as { body?: unknown })?.body ?? ''));

/** Calls the platform answers without a session (public inventories): their success proves nothing about ours. */
const PUBLIC_ENDPOINTS = new Set(['inventory', 'own-inventory']);

export class BotDriver {
  readonly community: SteamCommunity;
  readonly manager: TradeOfferManager;
  private signingIn?: Promise<void>;
  private pending = new Set<Promise<unknown>>();
  private accessToken?: string;
  /** The stored web session last handed to the libraries: an expired one is not tried twice. */
  private triedCookies?: string;
  /** Successful sign-ins so far: a call that failed signed-out only signs in if nobody did meanwhile. */
  private generation = 0;
  /** Cookies were handed to the libraries (a session to call with, proven or not). */
  private hasSession = false;
  /**
   * A live session: a signed-in call went through with the current session. Never set by a sign-in
   * alone or by a public call; lost when a signed-in call answers signed out and no sign-in helps.
   */
  private live = false;
  /** The last call the platform answered as signed in (a live session). */
  lastAuthenticatedAt?: Date;
  /** Consecutive failed sign-ins and the time before which none is tried again. */
  private signInFailures = 0;
  private nextSignInAt = 0;
  sessionError?: string;
  private stopped = false;

  constructor(
    readonly bot: DriverBot,
    private readonly deps: { settings: SteamSettings; sessions: SessionProvider; backoff: Backoff; events: DriverEvents; offerTtlMs: number },
  ) {
    this.community = new SteamCommunity();
    if (bot.proxy) {
      // Both libraries send through community.request: its defaults take the bot's proxy agents.
      const agents = proxyAgents(bot.proxy, deps.settings.callTimeoutMs);
      sendCommunityThrough(this.community, (uri) => (uri.startsWith('https:') ? agents.https : agents.http));
    }
    const { communityUrl, apiUrl } = deps.settings;
    const rewrite = communityUrl !== DEFAULT_COMMUNITY || apiUrl !== DEFAULT_API;
    if (rewrite) {
      // Every request of both libraries goes through community.httpRequest: point it at the stand-in.
      rewriteCommunityRequests(this.community, (options) => {
        const original = String(options.uri ?? options.url);
        if (original.startsWith('https://steamcommunity.com/')) {
          // The cookie jar is keyed by the real host: hand the stand-in the same session cookies.
          options.headers = { ...options.headers, cookie: communityCookies(this.community, 'https://steamcommunity.com/') };
        }
        options.uri = options.url = original.replace(/^https:\/\/steamcommunity\.com\/+/, `${communityUrl}/`).replace(/^https:\/\/api\.steampowered\.com\//, `${apiUrl}/`);
      });
    }
    this.manager = new TradeOfferManager({
      community: this.community,
      pollInterval: -1, // the adapter drives polls (doPoll) on its own timer
      dataDirectory: null, // poll data lives in the database
      pollData: bot.pollData ?? {},
      // Active offers are withdrawn once the gateway's offer TTL has passed, so none outlives its record.
      cancelTime: deps.offerTtlMs,
      pendingCancelTime: deps.offerTtlMs,
    });
    this.manager.minimumPollInterval = 0;
    const track = (p: Promise<unknown>) => {
      this.pending.add(p);
      p.finally(() => this.pending.delete(p)).catch(() => {});
    };
    const snapshot = (o: any): OfferSnapshot => ({ id: String(o.id), state: o.state, message: o.message ?? '', tradeId: o.tradeID ?? null, escrowEnds: o.escrowEnds ?? null, isOurOffer: Boolean(o.isOurOffer) });
    // The library holds back every unknown sent offer while any send of this bot awaits its answer:
    // one hung send would hide a late offer, so that hold-back is switched off (see the adapter).
    neverHoldBackSentOffers(this.manager);
    // The library counts a change as seen once it has emitted it: a change our handler failed to
    // take (a database error) is forgotten from the poll data, so the next poll reports it again.
    const changed = (offer: any) => track(deps.events.offerChanged(snapshot(offer)).catch((err: unknown) => {
      const sent = (this.manager.pollData as { sent?: Record<string, unknown> } | undefined)?.sent;
      if (sent) delete sent[String(offer.id)];
      throw err;
    }));
    this.manager.on('sentOfferChanged', changed);
    this.manager.on('unknownOfferSent', changed);
    this.manager.on('pollData', (data: Record<string, unknown>) => track(deps.events.pollData(data)));
    // An expired web session: sign in again (once, whoever notices first; not while backing off).
    // A one-off 401 with the session still valid costs one sign-in at most, never the bot.
    const relogin = () => void (this.signInDue() ? this.signIn().catch(() => {}) : undefined);
    this.manager.on('sessionExpired', relogin);
    this.community.on('sessionExpired', relogin);
  }

  /**
   * Signs in and hands the cookies to both libraries: a stored web session as is, unless this
   * driver already tried that very session (HTTP alone, no login host: a stand-in platform, or an
   * operator-refreshed session); else refresh token, else credentials.
   */
  signIn(): Promise<void> {
    if (this.signingIn) return this.signingIn;
    let onPlatform = false;
    this.signingIn = (async () => {
      const latest = (await this.deps.events.webCookies?.()) ?? this.bot.webCookies;
      const stored = latest && latest.join('\n') !== this.triedCookies ? latest : undefined;
      if (stored) this.triedCookies = stored.join('\n');
      onPlatform = !stored;
      const session = stored
        ? { cookies: stored, refreshToken: undefined }
        : await this.deps.sessions.signIn({ accountName: this.bot.accountName, password: this.bot.password, sharedSecret: this.bot.sharedSecret, refreshToken: this.bot.refreshToken, proxy: this.bot.proxy });
      if (onPlatform) this.deps.events.signInTried?.('ok');
      if (session.refreshToken && session.refreshToken !== this.bot.refreshToken) {
        this.bot.refreshToken = session.refreshToken;
        await this.deps.events.refreshToken(session.refreshToken);
      }
      await cb<void>((done) => this.manager.setCookies(session.cookies, (err?: Error | null) => done(err ?? null)));
      this.accessToken = managerAccessToken(this.manager);
      this.hasSession = true;
      if (onPlatform) {
        // The next driver of this bot starts from this session instead of signing in again.
        this.triedCookies = session.cookies.join('\n');
        await this.deps.events.webSession?.(session).catch(() => {});
      }
      this.generation++;
      this.signInFailures = 0;
      this.nextSignInAt = 0;
      // A live session stays live; one that is not becomes live only once a signed-in call goes through.
      if (!this.live) this.sessionError = undefined;
      this.report();
    })().catch((err: Error) => {
      // The session may still work (a one-off 401): kept; tried again after a backoff — at least as
      // long as Steam asked for when it refused the sign-in for its rate limit.
      if (onPlatform) this.deps.events.signInTried?.(err instanceof SignInRateLimitedError ? 'rate_limited' : 'failed');
      this.signInFailures++;
      const cap = Math.min(SIGN_IN_BACKOFF.maxMs, SIGN_IN_BACKOFF.factor * this.deps.settings.backoffBaseMs * 2 ** Math.min(this.signInFailures - 1, 20));
      const wait = Math.round(cap / 2 + (Math.random() * cap) / 2);
      this.nextSignInAt = Date.now() + (err instanceof SignInRateLimitedError ? Math.max(err.retryAfterMs, wait) : wait);
      this.sessionError = err.message;
      this.report();
      throw err;
    }).finally(() => {
      this.signingIn = undefined;
    });
    return this.signingIn;
  }

  /** Whether a sign-in may be tried now (not backing off after a failed one). */
  signInDue(): boolean {
    return Date.now() >= this.nextSignInAt;
  }

  /** A live session: a signed-in call went through with the current session (the picker's and the operator's "signed in"). */
  get signedIn(): boolean {
    return this.live;
  }

  /** The session's state now, as steam-drivers.ts writes it for every reader. */
  sessionState(): SessionState {
    return {
      live: this.live,
      at: this.lastAuthenticatedAt,
      error: this.sessionError ?? null,
      retryAt: this.nextSignInAt > Date.now() ? new Date(this.nextSignInAt) : null,
    };
  }

  private report(): void {
    if (!this.stopped) this.deps.events.session?.(this.sessionState());
  }

  /** A signed-in call went through: the session is live. */
  private authenticated(): void {
    this.live = true;
    this.lastAuthenticatedAt = new Date();
    this.sessionError = undefined;
    this.report();
  }

  /** A signed-out answer and no sign-in that worked: the session is gone until one does. */
  private sessionLost(err: unknown): void {
    this.live = false;
    this.sessionError = this.sessionError ?? (err as Error)?.message ?? String(err);
    this.report();
  }

  /** Signs in unless a sign-in backs off; answers whether the driver has a session to call with. */
  private async ensureSession(): Promise<boolean> {
    if (this.signingIn) await this.signingIn.catch(() => {});
    if (!this.hasSession && this.signInDue()) await this.signIn().catch(() => {});
    return this.hasSession;
  }

  /**
   * Starts the driver: signs in (from the stored session first) and proves the session with one
   * poll, so the bot enters the rotation only with a session that answered signed in. A failure
   * leaves the driver out of rotation with its reason; the polls try again (a sign-in with backoff).
   */
  async start(): Promise<void> {
    if (!this.hasSession) await this.signIn();
    await this.pollWithSession();
  }

  get steamId(): string | undefined {
    return this.community.steamID?.getSteamID64();
  }

  /** One platform call: backoff per bot and endpoint, a timeout, and one re-login on a signed-out answer. */
  async call<T>(endpoint: string, fn: () => Promise<T>): Promise<T> {
    const once = () => this.deps.backoff.run(`${this.bot.id}:${endpoint}`, () => timeout(fn(), this.deps.settings.callTimeoutMs, endpoint), isRateLimited);
    const proves = !PUBLIC_ENDPOINTS.has(endpoint);
    if (!(await this.ensureSession())) throw new Error(`Not Logged In: ${this.sessionError ?? 'no session yet'}`);
    const generation = this.generation;
    try {
      const out = await once();
      if (proves) this.authenticated();
      return out;
    } catch (err) {
      if (!isSignedOut(err)) throw err;
      // The libraries' sessionExpired event may already have signed in again: then just retry.
      // A sign-in that fails leaves the session as it was (a one-off 401 costs nothing): the call is
      // tried once more with it. Its error is the call's own — a signed-out answer means nothing was
      // done on the platform (a send is no ambiguous send), never the sign-in's.
      let signInFailed = false;
      try {
        if (this.signingIn) await this.signingIn;
        else if (this.generation === generation && this.signInDue()) await this.signIn();
      } catch {
        signInFailed = true;
      }
      try {
        const out = await once();
        if (proves) this.authenticated();
        return out;
      } catch (again) {
        if (proves && (isSignedOut(again) || signInFailed)) this.sessionLost(again);
        throw again;
      }
    }
  }

  async acknowledgeTradeProtection(): Promise<void> {
    await this.call('acknowledge', () => cb<void>((done) => acknowledgeTradeProtection(this.community, done)));
  }

  async userDetails(partnerSteamId: string, token: string): Promise<PartnerDetails> {
    return this.call('details', () => cb<PartnerDetails>((done) => {
      const offer = this.manager.createOffer(partnerSteamId, token);
      offer.getUserDetails((err: Error | null, _me: unknown, them: PartnerDetails) => done(err, them));
    }));
  }

  async inventory(steamId: string, appId: number, contextId: string, endpoint = 'inventory'): Promise<CommunityItem[]> {
    return this.call(endpoint, () => cb<CommunityItem[]>((done) => {
      userInventory<CommunityItem>(this.community, new SteamID(steamId), appId, Number(contextId), true, done);
    }));
  }

  /** Sends an offer; answers its id and whether it awaits mobile confirmation. */
  async send(req: { partnerSteamId: string; token: string; message: string; give: { appid: number; contextid: string; assetid: string }[]; receive: { appid: number; contextid: string; assetid: string }[] }): Promise<{ id: string; pending: boolean }> {
    // Never retried on a lost answer (the offer may exist): only 429s, which Steam answers before doing anything.
    return this.call('send', () => cb<{ id: string; pending: boolean }>((done) => {
      const offer = this.manager.createOffer(req.partnerSteamId, req.token);
      addItems(offer, req.give, req.receive);
      offer.setMessage(req.message);
      offer.send((err: Error | null, status?: string) => done(err, err ? undefined : { id: String(offer.id), pending: status === 'pending' }));
    }));
  }

  async confirm(offerId: string): Promise<void> {
    await this.call('confirmations', () => cb<void>((done) => this.community.acceptConfirmationForObject(this.bot.identitySecret, offerId, (err: Error | null) => done(err))));
  }

  /** The pending mobile confirmations (proves the identity secret and the session work). */
  async confirmations(): Promise<number> {
    return this.call('confirmations', () => cb<number>((done) => {
      const time = Math.floor(Date.now() / 1000);
      this.community.getConfirmations(time, SteamTotp.getConfirmationKey(this.bot.identitySecret, time, 'conf'), (err: Error | null, list?: unknown[]) => done(err, list?.length ?? 0));
    }));
  }

  async getOffer(offerId: string): Promise<OfferSnapshot & { cancel(): Promise<void> }> {
    const offer: any = await this.call('offers', () => cb<any>((done) => this.manager.getOffer(offerId, (err: Error | null, o: unknown) => done(err, o))));
    return {
      id: String(offer.id), state: offer.state, message: offer.message ?? '', tradeId: offer.tradeID ?? null, escrowEnds: offer.escrowEnds ?? null, isOurOffer: Boolean(offer.isOurOffer),
      cancel: () => this.call('cancel', () => cb<void>((done) => offer.cancel((err: Error | null) => done(err)))),
    };
  }

  /**
   * The assets a trade gave us, with their new ids (GetTradeStatus through getExchangeDetails). With
   * the trade id the poll already read, the offer is not read again (one call: GetTradeStatus).
   */
  async receivedAssets(offerId: string, tradeId?: string | null): Promise<{ assetid: string; new_assetid: string; new_contextid: string }[]> {
    const offer: any = tradeId
      ? Object.assign(this.manager.createOffer(this.bot.platformId), { id: offerId, tradeID: tradeId })
      : await this.call('offers', () => cb<any>((done) => this.manager.getOffer(offerId, (err: Error | null, o: unknown) => done(err, o))));
    return this.call('exchange', () => cb<any[]>((done) => offer.getExchangeDetails((err: Error | null, _status: number, _at: Date, received: any[]) => done(err, received))))
      .then((items) => items.map((i: any) => ({ assetid: String(i.assetid), new_assetid: String(i.new_assetid), new_contextid: String(i.new_contextid) })));
  }

  /** Our sent offers (active, and historical ones updated since `since`) carrying exactly this message. */
  async findSentByMessage(message: string, since: Date): Promise<OfferSnapshot | undefined> {
    const sent: any[] = await this.call('offers', () => cb<any[]>((done) => this.manager.getOffers(TradeOfferManager.EOfferFilter.ActiveOnly, since, (err: Error | null, s: any[]) => done(err, s))));
    const o = sent.find((x) => x.message === message);
    return o && { id: String(o.id), state: o.state, message: o.message, tradeId: o.tradeID ?? null, escrowEnds: o.escrowEnds ?? null, isOurOffer: true };
  }

  /** IEconService/GetTradeHistory with failed trades (reversals), newest first, back to `since`. */
  async tradeHistory(since: Date): Promise<HistoryTrade[]> {
    const out: HistoryTrade[] = [];
    let startAfterTime: number | undefined;
    let startAfterTradeId: string | undefined;
    for (let page = 0; page < 50; page++) {
      const body: any = await this.call('history', () => cb<any>((done) => communityRequest(this.community, {
        uri: `${DEFAULT_API}/IEconService/GetTradeHistory/v1/`,
        qs: { access_token: this.accessToken, max_trades: 500, include_failed: 1, get_descriptions: 0, ...(startAfterTime ? { start_after_time: startAfterTime, start_after_tradeid: startAfterTradeId } : {}) },
        json: true,
      }, (err, res, b) => {
        if (!err && res?.statusCode !== 200) err = Object.assign(new Error(`HTTP error ${res?.statusCode}`), { code: res?.statusCode });
        done(err, b);
      }, 'steam-adapter')));
      const trades: HistoryTrade[] = body?.response?.trades ?? [];
      out.push(...trades);
      const last = trades[trades.length - 1];
      if (!body?.response?.more || !last || last.time_init * 1000 < since.getTime()) break;
      startAfterTime = last.time_init;
      startAfterTradeId = String(last.tradeid);
    }
    return out.filter((t) => t.time_init * 1000 >= since.getTime());
  }

  /**
   * A poll that survives a one-off signed-out answer: sign in again if allowed (else keep the
   * session) and poll once more; only a second signed-out answer means the session is gone.
   */
  async pollWithSession(): Promise<void> {
    if (!(await this.ensureSession())) {
      const err = new Error(`Not Logged In: ${this.sessionError ?? 'no session yet'}`);
      this.sessionLost(err);
      throw err;
    }
    try {
      await this.poll();
    } catch (err) {
      if (!isSignedOut(err)) throw err;
      if (this.signingIn) await this.signingIn.catch(() => {});
      else if (this.signInDue()) await this.signIn().catch(() => {});
      try {
        await this.poll();
      } catch (again) {
        if (isSignedOut(again)) this.sessionLost(again);
        throw again;
      }
    }
  }

  /** One poll of our offers; resolves once the changes it found have been handed on. */
  async poll(full = false): Promise<void> {
    // Without a token the library's doPoll returns without an event: the poll would never end.
    if (!managerCanPoll(this.manager)) throw new Error('Not Logged In: the session has no access token');
    await new Promise<void>((resolve, reject) => {
      const ok = () => { this.manager.removeListener('pollFailure', bad); resolve(); };
      const bad = (err: Error) => { this.manager.removeListener('pollSuccess', ok); reject(err); };
      this.manager.once('pollSuccess', ok);
      this.manager.once('pollFailure', bad);
      pollNow(this.manager, full);
    });
    this.authenticated();
    await Promise.allSettled([...this.pending]);
  }

  stop(): void {
    this.stopped = true;
    this.manager.shutdown();
  }
}
