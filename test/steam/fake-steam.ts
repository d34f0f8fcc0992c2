// A stand-in trading platform for the steam adapter's tests: the community site and Web API
// answers steamcommunity / steam-tradeoffer-manager read (trade offer page, send, cancel,
// inventories with paging, mobile confirmations checked against the identity secret, trade
// offers, trade history with reversals), with the platform's failures on demand (429s, eresult 16
// with the offer created, expired sessions). The adapter reaches it through STEAM_COMMUNITY_URL /
// STEAM_API_URL. Its state changes (accept, decline, reverse…) are what a user would do.
import http from 'node:http';
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import SteamTotp from 'steam-totp';
import { SignInRateLimitedError, type SessionProvider } from '../../src/platform/steam/session.js';

const BASE = 76561197960265728n;
const steamIdOf = (accountId: number) => (BASE + BigInt(accountId)).toString();
const accountIdOf = (steamId: string) => Number(BigInt(steamId) - BASE);

export interface FakeItem {
  assetid: string; classid: string; name: string; tradable?: boolean; appid?: number;
  /** The inventory's per-asset properties, as Steam sends them (e.g. { propertyid: 7, int_value: '415', name: 'Finish Catalog' }). */
  properties?: { propertyid: number; int_value?: string; float_value?: string; string_value?: string; name: string }[];
  /** The description lines of the item's class (type html), e.g. a "Phase 2" line. */
  lines?: string[];
  /** The class's actions, e.g. CS2's "Inspect in Game..." link with its %assetid% / %propid:6% placeholders. */
  actions?: { link: string; name: string }[];
  /** '16': in CS2 trade protection (the protected context); default '2'. */
  context?: string;
  /** The item's own protection release time, as the inventory shows it (item_expiration, ISO). */
  expiration?: string;
}
export interface FakeUser { partner: number; token: string; name?: string; escrowDays?: number; probation?: boolean; private?: boolean; hiddenApps?: number[]; items: FakeItem[] }
export interface FakeBot { steamId: string; accountName: string; password: string; sharedSecret: string; identitySecret: string; items: FakeItem[]; acknowledged?: boolean }
export interface FakeOffer {
  id: string; bot: string; partner: number; message: string; state: number; give: FakeItem[]; receive: FakeItem[];
  created: number; updated: number; tradeid?: string; escrowEnd?: number;
  /** Items the bot received, under the new asset ids the platform gave them. */
  received?: { assetid: string; new_assetid: string; new_contextid: string; classid: string }[];
}
interface Trade { tradeid: string; bot: string; steamid_other: string; time_init: number; status: number; rollback_trade?: string }

export class FakeSteam {
  url = '';
  users = new Map<number, FakeUser>();
  bots = new Map<string, FakeBot>();
  offers = new Map<string, FakeOffer>();
  trades: Trade[] = [];
  tokens = new Map<string, string>(); // access token → bot steam id
  requests: { method: string; path: string; status: number }[] = [];
  signIns = 0;
  /** Every sign-in fails (the login host unreachable): only a still-valid session or a stored web session works. */
  refuseSignIns = false;
  refusedSignIns = 0;
  /** Sign-ins of these accounts fail (one bot's login refused while the others' work). */
  refuseSignInsOf = new Set<string>();
  /** Sign-ins of these accounts are refused for Steam's rate limit, asking for this many seconds. */
  rateLimitSignInsOf = new Map<string, number>();
  /** Sign-ins tried per account, whatever their outcome. */
  signInAttempts = new Map<string, number>();
  /** The trade offer page answers only a signed-in bot (as on the platform), else 401. */
  pagesNeedSession = false;
  /** Next N requests whose path matches answer 429 (no Retry-After, as the platform does). */
  private limits: { re: RegExp; left: number }[] = [];
  /** The next send creates the offer but answers eresult 16 (Timeout). */
  nextSendLost = false;
  /** The next send is refused with this strError (e.g. the new-device lock). */
  nextSendError?: string;
  /** The next send creates the offer unseen (no API lists it until reveal()) and answers eresult 16: a late offer. */
  nextSendHidden = false;
  /** The next send creates the offer unseen, then hangs this long before answering (a hang-up: the client times out first). */
  nextSendHangMs = 0;
  /** Offers created but not yet visible through the API (the user can still accept them). */
  hidden = new Set<string>();
  /** Next N requests whose path matches answer with this status (401, 500…). */
  private failures: { re: RegExp; left: number; status: number; body: unknown }[] = [];
  private seq = 7_100_000_000;
  private tradeSeq = 5_000_000_000_000_000n;
  private server = http.createServer((req, res) => void this.handle(req, res));

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
  get env() {
    return { STEAM_COMMUNITY_URL: `${this.url}/community`, STEAM_API_URL: `${this.url}/api` };
  }

  addBot(accountName: string, accountId: number, items: FakeItem[] = []): FakeBot {
    const bot = { steamId: steamIdOf(accountId), accountName, password: `pw-${accountName}`, sharedSecret: crypto.randomBytes(20).toString('base64'), identitySecret: crypto.randomBytes(20).toString('base64'), items };
    this.bots.set(bot.steamId, bot);
    return bot;
  }
  addUser(user: FakeUser): FakeUser {
    this.users.set(user.partner, user);
    return user;
  }
  limit(re: RegExp, times: number): void {
    this.limits.push({ re, left: times });
  }
  /** The next `times` requests whose path matches answer `status` (e.g. a one-off 401, a 500 on cancel). */
  fail(re: RegExp, times: number, status: number, body: unknown = status === 401 ? 'Not Logged In' : { strError: `There was an error (${status})` }): void {
    this.failures.push({ re, left: times, status, body });
  }
  clearFailures(): void {
    this.failures = [];
  }
  /** Late offers become visible (updated now, as the platform lists them). */
  reveal(): void {
    for (const id of this.hidden) this.change(this.offers.get(id)!, this.offers.get(id)!.state);
    this.hidden.clear();
  }
  /** No more 429s pending. */
  clearLimits(): void {
    this.limits = [];
  }
  /** Every web session is refused from now on (the bots must sign in again). */
  expireSessions(): void {
    this.tokens.clear();
  }
  /** One bot's web sessions are refused from now on. */
  expireSessionOf(bot: FakeBot): void {
    for (const [token, id] of this.tokens) if (id === bot.steamId) this.tokens.delete(token);
  }
  /** A web session of the bot, as an operator would copy it from a signed-in browser. */
  webCookies(bot: FakeBot): { cookies: string[]; token: string } {
    const token = crypto.randomBytes(16).toString('hex');
    this.tokens.set(token, bot.steamId);
    return { cookies: [`steamLoginSecure=${bot.steamId}%7C%7C${token}`, `sessionid=${crypto.randomBytes(12).toString('hex')}`], token };
  }
  /** Signs bots in as steam-session would: cookies carrying an access token for this platform. */
  sessions(): SessionProvider {
    return {
      signIn: async (req) => {
        const bot = [...this.bots.values()].find((b) => b.accountName === req.accountName);
        this.signInAttempts.set(req.accountName, (this.signInAttempts.get(req.accountName) ?? 0) + 1);
        const limited = this.rateLimitSignInsOf.get(req.accountName);
        if (limited !== undefined) throw new SignInRateLimitedError(limited * 1000);
        if (this.refuseSignIns || this.refuseSignInsOf.has(req.accountName)) {
          this.refusedSignIns++;
          throw new Error('sign-in failed: the login host did not answer');
        }
        if (!bot || bot.password !== req.password) throw new Error('InvalidPassword');
        this.signIns++;
        const { cookies, token } = this.webCookies(bot);
        return { cookies, refreshToken: req.refreshToken ?? `rt-${token}` };
      },
    };
  }

  // ---- what users (and time) do
  private change(o: FakeOffer, state: number): void {
    o.state = state;
    o.updated = Math.floor(Date.now() / 1000) + 1;
  }
  private move(items: FakeItem[], from: FakeItem[], to: FakeItem[]): void {
    for (const it of items) {
      const i = from.findIndex((x) => x.assetid === it.assetid);
      if (i >= 0) from.splice(i, 1);
      to.push({ ...it });
    }
  }
  /**
   * protectionEndsAt: the trade's items' own release time, as Steam reports it on the accepted offer
   * (escrow end date, state Accepted). itemsProtectedUntil: the received items land in the bot's
   * protected context 16, each showing this release time in the inventory (item_expiration).
   */
  accept(id: string, opts: { escrowDays?: number; protectionEndsAt?: Date; itemsProtectedUntil?: Date } = {}): FakeOffer {
    const o = this.offers.get(id)!;
    if (o.state !== 2) throw new Error(`fake steam: offer ${id} is not active (${o.state})`);
    const bot = this.bots.get(o.bot)!;
    const user = this.users.get(o.partner)!;
    o.tradeid = String(this.tradeSeq++);
    if (opts.escrowDays) {
      o.escrowEnd = Math.floor(Date.now() / 1000) + opts.escrowDays * 86400;
      this.change(o, 11);
      this.trades.unshift({ tradeid: o.tradeid, bot: o.bot, steamid_other: steamIdOf(o.partner), time_init: o.updated, status: 10 });
    } else {
      if (opts.protectionEndsAt) o.escrowEnd = Math.floor(opts.protectionEndsAt.getTime() / 1000);
      this.change(o, 3);
      this.receive(o, opts.itemsProtectedUntil);
      this.move(o.give, bot.items, user.items);
      this.trades.unshift({ tradeid: o.tradeid, bot: o.bot, steamid_other: steamIdOf(o.partner), time_init: o.updated, status: 3 });
    }
    return o;
  }
  endEscrow(id: string): void {
    const o = this.offers.get(id)!;
    this.change(o, 3);
    this.receive(o);
    this.trades.find((t) => t.tradeid === o.tradeid)!.status = 3;
  }
  rollbackEscrow(id: string): void {
    const o = this.offers.get(id)!;
    this.change(o, 6);
    this.trades.find((t) => t.tradeid === o.tradeid)!.status = 11;
  }
  /** Items move to the bot under new asset ids, as on the platform. */
  private receive(o: FakeOffer, protectedUntil?: Date): void {
    const user = this.users.get(o.partner)!;
    const bot = this.bots.get(o.bot)!;
    o.received = o.receive.map((it) => {
      user.items.splice(user.items.findIndex((x) => x.assetid === it.assetid), 1);
      const moved: FakeItem = { ...it, assetid: String(BigInt(it.assetid) + 1_000_000_000_000n), ...(protectedUntil ? { context: '16', tradable: false, expiration: protectedUntil.toISOString() } : {}) };
      bot.items.push(moved);
      return { assetid: it.assetid, new_assetid: moved.assetid, new_contextid: moved.context ?? '2', classid: it.classid };
    });
  }
  decline(id: string): void {
    this.change(this.offers.get(id)!, 7);
  }
  expire(id: string): void {
    this.change(this.offers.get(id)!, 5);
  }
  /** The giver reverses the trade during trade protection: the offer stays Accepted (as on the platform). */
  reverse(id: string): void {
    const o = this.offers.get(id)!;
    const orig = this.trades.find((t) => t.tradeid === o.tradeid)!;
    orig.status = 12;
    const bot = this.bots.get(o.bot)!;
    for (const r of o.received ?? []) bot.items.splice(bot.items.findIndex((i) => i.assetid === r.new_assetid), 1);
    this.users.get(o.partner)!.items.push(...o.receive.map((i) => ({ ...i })));
    this.move(o.give, this.users.get(o.partner)!.items, this.bots.get(o.bot)!.items);
    this.trades.unshift({ tradeid: String(this.tradeSeq++), bot: o.bot, steamid_other: orig.steamid_other, time_init: Math.floor(Date.now() / 1000), status: 3, rollback_trade: orig.tradeid });
  }
  sentBy(botSteamId: string): FakeOffer[] {
    return [...this.offers.values()].filter((o) => o.bot === botSteamId);
  }

  // ---- HTTP
  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      await this.route(req, res);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url!.replace(/\/{2,}/g, '/'), this.url);
    const q = url.searchParams;
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const path = url.pathname;
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      this.requests.push({ method: req.method!, path, status });
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json', ...headers });
      res.end(text);
    };
    const lim = this.limits.find((l) => l.left > 0 && l.re.test(path));
    if (lim) {
      lim.left--;
      return send(429, 'Too Many Requests');
    }
    const failure = this.failures.find((f) => f.left > 0 && f.re.test(path));
    if (failure) {
      failure.left--;
      return send(failure.status, failure.body);
    }
    if (path.startsWith('/api/')) return this.api(path.slice(4), q, send);
    if (!path.startsWith('/community/')) return send(404, 'not found');
    const p = path.slice('/community'.length);
    let m: RegExpExecArray | null;
    const me = this.botOfCookie(req.headers.cookie);
    if (p === '/tradeoffer/new/' && req.method === 'GET') {
      if (this.pagesNeedSession && !me) return send(401, 'Not Logged In');
      return this.offerPage(Number(q.get('partner')), q.get('token') ?? '', send);
    }
    if (p === '/tradeoffer/new/send' && req.method === 'POST') return me ? this.sendOffer(me, form, send) : send(401, 'Not Logged In');
    if ((m = /^\/tradeoffer\/(\d+)\/cancel$/.exec(p))) {
      if (!me) return send(401, 'Not Logged In');
      const o = this.offers.get(m[1]);
      if (!o) return send(500, { strError: 'There was an error cancelling this trade offer. (8)' });
      if (o.state === 2 || o.state === 9) this.change(o, 6);
      return send(200, { tradeofferid: o.id });
    }
    if ((m = /^\/inventory\/(\d+)\/(\d+)\/(\d+)$/.exec(p))) return this.inventory(m[1], Number(m[2]), q, send, m[3]);
    if (p === '/trade/new/acknowledge') {
      if (!me) return send(302, '', { location: `${this.url}/community/login/home` });
      me.acknowledged = true;
      return send(200, { success: 1 });
    }
    if (p === '/mobileconf/getlist' || p === '/mobileconf/ajaxop') return this.mobileconf(p, q, send);
    return send(404, 'not found');
  }

  /** The bot a community request comes from: its steamLoginSecure cookie (steamid||access token). */
  private botOfCookie(cookie: string | undefined): FakeBot | undefined {
    const m = /steamLoginSecure=(\d+)(?:%7C%7C|\|\|)([0-9a-f]+)/.exec(cookie ?? '');
    const id = m && this.tokens.get(m[2]);
    return id && id === m![1] ? this.bots.get(id) : undefined;
  }

  private botOfToken(q: URLSearchParams): FakeBot | undefined {
    const id = this.tokens.get(q.get('access_token') ?? '');
    return id ? this.bots.get(id) : undefined;
  }

  private api(path: string, q: URLSearchParams, send: (s: number, b: unknown, h?: Record<string, string>) => void) {
    const bot = this.botOfToken(q);
    if (!bot) return send(403, '<html><body><h1>Access Denied</h1>Access is denied. Retrying will not help. Please verify your <pre>key=</pre> parameter.</body></html>');
    const ok = (response: unknown) => send(200, { response }, { 'x-eresult': '1' });
    const raw = (o: FakeOffer) => ({
      tradeofferid: o.id, accountid_other: o.partner, message: o.message, expiration_time: o.created + 14 * 86400, trade_offer_state: o.state,
      items_to_give: o.give.map((i) => ({ appid: i.appid ?? 730, contextid: '2', assetid: i.assetid, classid: i.classid, instanceid: '0', amount: '1', missing: o.state === 3 })),
      items_to_receive: o.receive.map((i) => ({ appid: i.appid ?? 730, contextid: '2', assetid: i.assetid, classid: i.classid, instanceid: '0', amount: '1', missing: o.state === 3 })),
      is_our_offer: true, time_created: o.created, time_updated: o.updated, tradeid: o.tradeid, from_real_time_trade: false, escrow_end_date: o.escrowEnd ?? 0, confirmation_method: 2,
    });
    if (path === '/IEconService/GetTradeOffers/v1/') {
      const cutoff = Number(q.get('time_historical_cutoff') ?? 0);
      const activeOnly = q.get('active_only') === '1';
      const list = this.sentBy(bot.steamId).filter((o) => !this.hidden.has(o.id)).filter((o) => !activeOnly || o.state === 2 || o.state === 9 || o.state === 11 || o.updated >= cutoff);
      return ok({ trade_offers_sent: list.map(raw), trade_offers_received: [], next_cursor: 0 });
    }
    if (path === '/IEconService/GetTradeOffer/v1/') {
      const o = this.offers.get(q.get('tradeofferid') ?? '');
      return ok(o && o.bot === bot.steamId && !this.hidden.has(o.id) ? { offer: raw(o) } : {});
    }
    if (path === '/IEconService/GetTradeStatus/v1/') {
      const o = this.sentBy(bot.steamId).find((x) => x.tradeid === q.get('tradeid'));
      const t = o && this.trades.find((x) => x.tradeid === o.tradeid);
      return ok({ trades: o && t ? [{ tradeid: t.tradeid, steamid_other: t.steamid_other, status: t.status, time_init: t.time_init,
        assets_received: (o.received ?? []).map((r) => ({ appid: 730, contextid: '2', assetid: r.assetid, amount: '1', classid: r.classid, instanceid: '0', new_assetid: r.new_assetid, new_contextid: r.new_contextid })) }] : [] });
    }
    if (path === '/IEconService/GetTradeHistory/v1/') {
      const trades = this.trades.filter((t) => t.bot === bot.steamId).map(({ bot: _b, ...t }) => t);
      return ok({ more: false, trades });
    }
    return send(404, 'not found');
  }

  private offerPage(partner: number, token: string, send: (s: number, b: unknown) => void) {
    const user = this.users.get(partner);
    if (!user) return send(200, '<html><body><div id="error_msg">\n\tThere was an error sending your trade offer. The specified profile could not be found.\n</div></body></html>');
    if (user.token !== token) return send(200, `<html><body><div id="error_msg">\n\tThis Trade URL is no longer valid for sending a trade offer to ${user.name ?? partner}.\n</div></body></html>`);
    const apps = [730, 570, 440, 252490].filter((a) => !(user.hiddenApps ?? []).includes(a));
    const contexts = Object.fromEntries(apps.map((a) => [a, { appid: a, name: String(a), rgContexts: { 2: { asset_count: 1, id: '2', name: 'Backpack' } } }]));
    const script = `\n\t<script type="text/javascript">\n\t\tvar g_rgAppContextData = ${JSON.stringify(contexts)};\n\t\tvar g_rgPartnerAppContextData = ${JSON.stringify(contexts)};\n\t\tvar g_strYourPersonaName = "Bot";\n\t\tvar g_strTradePartnerPersonaName = ${JSON.stringify(user.name ?? `User ${partner}`)};\n\t\tvar g_bTradePartnerProbation = ${user.probation ? 'true' : 'false'};\n\t</script>\n`;
    return send(200, `<html><head>${script}<script>var g_daysMyEscrow = 0;\nvar g_daysTheirEscrow = ${user.escrowDays ?? 0};</script></head><body><img src="https://avatars.example/u.jpg" data-miniprofile="${partner}"></body></html>`);
  }

  private sendOffer(bot: FakeBot, form: URLSearchParams, send: (s: number, b: unknown) => void) {
    const partner = accountIdOf(form.get('partner')!);
    const user = this.users.get(partner);
    const token = JSON.parse(form.get('trade_offer_create_params') || '{}').trade_offer_access_token;
    if (!user) return send(500, { strError: 'There was an error sending your trade offer.  Please try again later. (15)' });
    if (user.token !== token) return send(500, { strError: 'This Trade URL is no longer valid for sending a trade offer to Bob. (26)' });
    if (this.nextSendError) {
      const strError = this.nextSendError;
      this.nextSendError = undefined;
      return send(500, { strError });
    }
    const offer = JSON.parse(form.get('json_tradeoffer')!);
    const giveIds: string[] = offer.me.assets.map((a: any) => a.assetid);
    if (!giveIds.every((id) => bot.items.some((i) => i.assetid === id))) return send(500, { strError: 'There was an error sending your trade offer.  Please try again later. (8)' });
    const receive = offer.them.assets.map((a: any) => user.items.find((i) => i.assetid === a.assetid));
    if (receive.some((x: unknown) => !x)) return send(500, { strError: 'There was an error sending your trade offer.  Please try again later. (26)' });
    const now = Math.floor(Date.now() / 1000);
    const o: FakeOffer = {
      id: String(this.seq++), bot: bot.steamId, partner, message: form.get('tradeoffermessage') ?? '', state: giveIds.length ? 9 : 2,
      give: giveIds.map((id) => bot.items.find((i) => i.assetid === id)!), receive, created: now, updated: now,
    };
    this.offers.set(o.id, o);
    if (this.nextSendHangMs) {
      const ms = this.nextSendHangMs;
      this.nextSendHangMs = 0;
      this.hidden.add(o.id);
      setTimeout(() => send(500, { strError: 'There was an error sending your trade offer.  Please try again later. (16)' }), ms).unref();
      return;
    }
    if (this.nextSendHidden) {
      this.nextSendHidden = false;
      this.hidden.add(o.id);
      return send(500, { strError: 'There was an error sending your trade offer.  Please try again later. (16)' });
    }
    if (this.nextSendLost) {
      this.nextSendLost = false;
      return send(500, { strError: 'There was an error sending your trade offer.  Please try again later. (16)' });
    }
    return send(200, { tradeofferid: o.id, ...(o.state === 9 ? { needs_mobile_confirmation: true } : {}) });
  }
  private inventory(steamId: string, appid: number, q: URLSearchParams, send: (s: number, b: unknown) => void, context = '2') {
    const bot = this.bots.get(steamId);
    const user = this.users.get(accountIdOf(steamId));
    if (!bot && (!user || user.private)) return send(403, 'null');
    const all = (bot ? bot.items : user!.items).filter((i) => (i.appid ?? 730) === appid && (i.context ?? '2') === context);
    const count = Number(q.get('count') ?? 1000);
    const start = q.get('start_assetid');
    const from = start ? all.findIndex((i) => i.assetid === start) + 1 : 0;
    const page = all.slice(from, from + count);
    if (all.length === 0) return send(200, { success: 1, total_inventory_count: 0, rwgrsn: -2 });
    return send(200, {
      assets: page.map((i) => ({ appid, contextid: context, assetid: i.assetid, classid: i.classid, instanceid: '0', amount: '1' })),
      descriptions: page.map((i) => ({ appid, classid: i.classid, instanceid: '0', tradable: i.tradable === false ? 0 : 1, market_hash_name: i.name, name: i.name,
        ...(i.lines ? { descriptions: i.lines.map((value) => ({ type: 'html', value, name: 'description' })) } : {}),
        ...(i.actions ? { actions: i.actions } : {}), ...(i.expiration ? { item_expiration: i.expiration } : {}) })),
      ...(page.some((i) => i.properties) ? { asset_properties: page.filter((i) => i.properties).map((i) => ({ appid, contextid: '2', assetid: i.assetid, asset_properties: i.properties })) } : {}),
      total_inventory_count: all.length, success: 1, rwgrsn: -2,
      ...(from + count < all.length ? { more_items: 1, last_assetid: page[page.length - 1].assetid } : {}),
    });
  }

  private mobileconf(path: string, q: URLSearchParams, send: (s: number, b: unknown) => void) {
    const bot = this.bots.get(q.get('a') ?? '');
    const t = Number(q.get('t'));
    if (!bot || q.get('k') !== SteamTotp.getConfirmationKey(bot.identitySecret, t, q.get('tag') ?? '')) return send(200, { success: false, needauth: true });
    const pending = this.sentBy(bot.steamId).filter((o) => o.state === 9);
    if (path === '/mobileconf/getlist') {
      return send(200, { success: true, conf: pending.map((o) => ({ id: `c${o.id}`, type: 2, creator_id: o.id, nonce: `n${o.id}`, creation_time: o.created, type_name: 'Trade Offer', headline: 'User', summary: ['1 item'] })) });
    }
    const o = pending.find((x) => `c${x.id}` === q.get('cid') && `n${x.id}` === q.get('ck'));
    if (!o || q.get('op') !== 'allow') return send(200, { success: false });
    this.change(o, 2);
    return send(200, { success: true });
  }
}
