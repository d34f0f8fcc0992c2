// The sandbox adapter of the trading-platform port (DESIGN 6): a faithful simulator. Users and
// their error conditions come from users.ts, inventories from the sandbox price book, bots and
// offer IDs from the database (so several instances agree). Offer changes (the user accepting,
// declining…) are what the test helpers `simulate`: they go to the handler registered with
// onOfferChange, exactly as a real adapter's platform events would.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import type { Game } from '../../domain/games.js';
import {
  PlatformAssetsRefusedError,
  PlatformUnavailableError,
  PlatformUserError,
  type Bot,
  type BotLedgerReader,
  type OfferChange,
  type OfferChangeHandler,
  type OfferedAsset,
  type PlatformItem,
  type PlatformUser,
  type SentOffer,
  type TradingPlatform,
} from '../port.js';
import { isLateAnswerPartner, isRevokedAfterCheckPartner, isSilentPurchasePartner, isUnavailablePartner, sandboxUser } from './users.js';
import { sandboxInventory } from './inventory.js';
import { createBotHoldings, type SandboxBotItem } from './bot-holdings.js';

export type { SandboxBotItem } from './bot-holdings.js';

export interface SandboxDeps {
  db: Db;
  clock: Clock;
  offerTtlSeconds: number;
  /** Items the sandbox may put into inventories, per game (the price book's names and phases). */
  itemsFor(game: Game): readonly { name: string; phase?: string }[];
  /** How long partner 90000013 takes to answer an offer (the gateway's DEPOSIT_TIMEOUT_MS + a little). */
  lateAnswerMs?: number;
  /** The platform's trade protection per game: items received with a hold are not tradable until it ends. */
  holdSeconds?: Record<Game, number>;
}

/** Resolves after `ms` of real time; the timer does not keep the process alive. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** The sandbox adapter: the port plus `simulate` (always present here) and the bots' holdings. */
export type SandboxPlatform = TradingPlatform & Required<BotLedgerReader> & {
  simulate(change: OfferChange): Promise<unknown>;
  /** Puts items into a bot's inventory, as if received outside the gateway (tests, operator stock). */
  giveBotItems(botId: number, game: Game, items: readonly SandboxBotItem[]): Promise<void>;
  /** Takes items out of a bot's inventory, as if moved away outside the gateway. */
  takeBotItems(botId: number, game: Game, assetIds: readonly string[]): Promise<void>;
};

export function createSandboxPlatform(deps: SandboxDeps): SandboxPlatform {
  const { db, clock } = deps;
  const holdings = createBotHoldings(deps);
  let offerChangeHandler: OfferChangeHandler | undefined;

  async function pickBot(seed: number): Promise<Bot> {
    const bots = await db.selectFrom('bots').select(['id', 'name', 'platform_id']).where('enabled', '=', true).orderBy('id').execute();
    if (bots.length === 0) throw new PlatformUnavailableError('no bot is available');
    const b = bots[Math.abs(seed) % bots.length];
    return { id: b.id, name: b.name, platformId: b.platform_id };
  }

  async function sendOffer(seed: number): Promise<SentOffer> {
    const bot = await pickBot(seed);
    const row = await sql<{ id: string }>`select nextval('sandbox_trade_offer_seq')::text as id`.execute(db);
    return { bot, tradeOfferId: row.rows[0].id, expiresAt: new Date(clock.now().getTime() + deps.offerTtlSeconds * 1000) };
  }

  /**
   * sendPurchaseOffer's usual path as one statement: the offer already recorded for the purchase,
   * else a new one — the bot pickBot would pick, an ID from the sequence, its record (ON CONFLICT:
   * a concurrent attempt's record stands). Undefined when neither (no bot enabled, or that conflict).
   */
  async function sendPurchaseInOne(purchaseId: number): Promise<SentOffer | undefined> {
    const expiresAt = new Date(clock.now().getTime() + deps.offerTtlSeconds * 1000);
    const r = await sql<{ trade_offer_id: string; expires_at: Date; bot_id: number; name: string; platform_id: string }>`
      with old as (
        select trade_offer_id, expires_at, bot_id from sandbox_purchase_offers where purchase_id = ${purchaseId}
      ), enabled as (
        select id, row_number() over (order by id) - 1 as i, count(*) over () as n from bots where enabled = true
      ), b as (
        select id from enabled where i = abs(${purchaseId}::bigint) % n
      ), ins as (
        insert into sandbox_purchase_offers (purchase_id, trade_offer_id, bot_id, expires_at)
        select ${purchaseId}, nextval('sandbox_trade_offer_seq')::text, b.id, ${expiresAt.toISOString()}::timestamptz
          from b where not exists (select 1 from old)
        on conflict (purchase_id) do nothing
        returning trade_offer_id, expires_at, bot_id
      )
      select x.trade_offer_id, x.expires_at, bots.id as bot_id, bots.name, bots.platform_id
        from (select * from old union all select * from ins) x join bots on bots.id = x.bot_id`.execute(db);
    const row = r.rows[0];
    return row && { bot: { id: row.bot_id, name: row.name, platformId: row.platform_id }, tradeOfferId: row.trade_offer_id, expiresAt: new Date(row.expires_at) };
  }

  /** sendPurchaseInOne for several purchases in one statement: the offers it could answer, by purchase id. */
  async function sendPurchasesInOne(purchaseIds: number[]): Promise<Map<number, SentOffer>> {
    const expiresAt = new Date(clock.now().getTime() + deps.offerTtlSeconds * 1000);
    const r = await sendPurchasesStatement(purchaseIds, expiresAt).execute(db);
    return new Map(
      r.rows.map((row) => [
        Number(row.purchase_id),
        { bot: { id: row.bot_id, name: row.name, platformId: row.platform_id }, tradeOfferId: row.trade_offer_id, expiresAt: new Date(row.expires_at) },
      ]),
    );
  }

  /** A deposit offer: its ID from the sequence and its sandbox record (with the assets asked for), in one statement. */
  async function sendDeposit(req: { depositId: number; game: Game; partner: number; assets: OfferedAsset[] }): Promise<SentOffer> {
    const bot = await pickBot(req.depositId);
    const expiresAt = new Date(clock.now().getTime() + deps.offerTtlSeconds * 1000);
    const assetIds = req.assets.map((a) => a.assetId);
    const row = await sql<{ id: string }>`
      insert into sandbox_deposit_offers (trade_offer_id, deposit_id, bot_id, expires_at, game, partner, asset_ids)
      values (nextval('sandbox_trade_offer_seq')::text, ${req.depositId}, ${bot.id}, ${expiresAt.toISOString()}::timestamptz,
              ${req.game}, ${req.partner}, ${assetIds}::text[])
      returning trade_offer_id as id`.execute(db);
    return { bot, tradeOfferId: row.rows[0].id, expiresAt };
  }

  /** The user's generated inventory without the assets that left them in accepted deposit offers. */
  async function currentInventory(game: Game, partner: number): Promise<PlatformItem[]> {
    const items = sandboxInventory(partner, game, deps.itemsFor(game));
    const gone = await sql<{ asset_id: string }>`
      select asset_id from sandbox_departed_assets where game = ${game} and partner = ${partner}`.execute(db);
    if (gone.rows.length === 0) return items;
    const departed = new Set(gone.rows.map((r) => r.asset_id));
    return items.filter((it) => !departed.has(it.assetId));
  }

  /** As the platform does: an offer for an asset the user does not hold tradable, as the item named, is refused. */
  async function assertHeld(game: Game, partner: number, assets: readonly OfferedAsset[]): Promise<void> {
    const held = new Map((await currentInventory(game, partner)).map((it) => [it.assetId, it]));
    const refused = assets.filter((a) => {
      const it = held.get(a.assetId);
      return !it || it.tradable === false || it.marketHashName !== a.marketHashName || (it.phase ?? null) !== (a.phase ?? null);
    });
    if (refused.length > 0 || assets.length === 0) throw new PlatformAssetsRefusedError(refused.map((a) => a.assetId));
  }

  /**
   * A reverted deposit's assets are its user's again. The assets of an accepted one leave their user
   * in the statement that records its trade (bot-holdings.ts receiveDepositAssets: one round trip
   * for the concurrent acceptances).
   */
  async function moveDepositAssets(change: OfferChange): Promise<void> {
    if (change.offer === 'deposit' && change.change === 'reverted') {
      await sql`delete from sandbox_departed_assets where deposit_id = ${change.recordId}`.execute(db);
    }
  }

  const lateAnswerMs = deps.lateAnswerMs ?? 10_500;

  const platform: SandboxPlatform = {
    kind: 'sandbox',

    async checkTradeLink(_game: Game, partner: number, token: string): Promise<PlatformUser> {
      return sandboxUser(partner, token);
    },

    // Partner 90000010 (DESIGN 6: "the platform does not answer"): the trade link checks out and
    // the inventory loads as usual, so every deposit flow reaches the point where it fails; there,
    // sending the deposit offer never answers (the caller's DEPOSIT_TIMEOUT_MS decides: HTTP 200,
    // failed, service_unavailable) and sending a purchase offer fails (provider_unavailable).
    async loadInventory(game: Game, partner: number, token: string): Promise<PlatformItem[]> {
      sandboxUser(partner, token);
      return currentInventory(game, partner);
    },

    async sendDepositOffer(req): Promise<SentOffer> {
      sandboxUser(req.partner, req.token);
      if (isRevokedAfterCheckPartner(req.partner)) throw new PlatformUserError('trade_link_revoked');
      // Silence: the caller's DEPOSIT_TIMEOUT_MS decides (spec 4.5 rule 8).
      if (isUnavailablePartner(req.partner)) return new Promise<SentOffer>(() => {});
      // 90000013: the offer goes out, but only after the caller's DEPOSIT_TIMEOUT_MS.
      if (isLateAnswerPartner(req.partner)) await sleep(lateAnswerMs);
      await assertHeld(req.game, req.partner, req.assets);
      return sendDeposit(req);
    },

    async sendPurchaseOffer(req): Promise<SentOffer> {
      sandboxUser(req.partner, req.token);
      // Purchases rely on this failing at once (fail_reason provider_unavailable).
      if (isUnavailablePartner(req.partner)) throw new PlatformUnavailableError('the trading platform did not answer');
      // 90000011: the link was reset after the purchase was created (fail_reason trade_url_error).
      if (isRevokedAfterCheckPartner(req.partner)) throw new PlatformUserError('trade_link_revoked');
      // 90000012: never answers; the dispatch's call timeout decides (fail_reason timeout_error).
      if (isSilentPurchasePartner(req.partner)) return new Promise<SentOffer>(() => {});
      // Idempotent per purchase (table sandbox_purchase_offers): a retried dispatch — the offer
      // went out but the gateway failed to record it — gets the offer already sent, never a second.
      const sent = async (): Promise<SentOffer | undefined> => {
        const r = await sql<{ trade_offer_id: string; expires_at: Date; bot_id: number; name: string; platform_id: string }>`
          select o.trade_offer_id, o.expires_at, b.id as bot_id, b.name, b.platform_id
            from sandbox_purchase_offers o join bots b on b.id = o.bot_id
           where o.purchase_id = ${req.purchaseId}`.execute(db);
        const row = r.rows[0];
        return row && { bot: { id: row.bot_id, name: row.name, platformId: row.platform_id }, tradeOfferId: row.trade_offer_id, expiresAt: new Date(row.expires_at) };
      };
      // The usual case in one round trip: the offer already sent, else a new one (bot, ID, record).
      if (!isLateAnswerPartner(req.partner)) {
        const one = await sendPurchaseInOne(req.purchaseId);
        if (one) return one;
        // nothing: no bot is enabled, or a concurrent attempt recorded its offer first (below decides)
      }
      const existing = await sent();
      if (existing) return existing;
      // 90000013: a new offer goes out only after the dispatch's call timeout (one already out is
      // answered at once, above).
      if (isLateAnswerPartner(req.partner)) await sleep(lateAnswerMs);
      const offer = await sendOffer(req.purchaseId);
      const ins = await sql`
        insert into sandbox_purchase_offers (purchase_id, trade_offer_id, bot_id, expires_at)
        values (${req.purchaseId}, ${offer.tradeOfferId}, ${offer.bot.id}, ${offer.expiresAt.toISOString()}::timestamptz)
        on conflict (purchase_id) do nothing`.execute(db);
      if (Number(ins.numAffectedRows ?? 0) === 1) return offer;
      // A concurrent attempt for the same purchase recorded its offer first: that one stands.
      const winner = await sent();
      if (!winner) throw new PlatformUnavailableError('the sandbox lost a purchase offer');
      return winner;
    },

    // A batch as one statement for the plain users (the offers already sent, new ones for the
    // others, as sendPurchaseInOne does each); the sandbox's special users, and any purchase the
    // statement did not answer, go through sendPurchaseOffer one by one.
    sendPurchaseOffers(reqs): Array<Promise<SentOffer>> {
      const plain = (req: (typeof reqs)[number]) => {
        try {
          sandboxUser(req.partner, req.token);
        } catch {
          return false;
        }
        return !isUnavailablePartner(req.partner) && !isRevokedAfterCheckPartner(req.partner) && !isSilentPurchasePartner(req.partner) && !isLateAnswerPartner(req.partner);
      };
      const ids = [...new Set(reqs.filter(plain).map((r) => r.purchaseId))];
      const got = ids.length ? sendPurchasesInOne(ids) : Promise.resolve(new Map<number, SentOffer>());
      // Each settles on its own: a silent or late special user holds up no other purchase.
      return reqs.map((req) => (plain(req) ? got.then((m) => m.get(req.purchaseId) ?? platform.sendPurchaseOffer(req)) : platform.sendPurchaseOffer(req)));
    },

    // Marks the offer canceled in the sandbox's record (idempotent: a second cancel keeps the first
    // time). An offer the sandbox never sent for that record is a programming error.
    async cancelOffer(req): Promise<void> {
      const r =
        req.offer === 'deposit'
          ? await sql`update sandbox_deposit_offers set canceled_at = coalesce(canceled_at, now())
                       where trade_offer_id = ${req.tradeOfferId} and deposit_id = ${req.recordId}`.execute(db)
          : await sql`update sandbox_purchase_offers set canceled_at = coalesce(canceled_at, now())
                       where trade_offer_id = ${req.tradeOfferId} and purchase_id = ${req.recordId}`.execute(db);
      if (Number(r.numAffectedRows ?? 0) !== 1) {
        throw new Error(`sandbox platform: no ${req.offer} offer ${req.tradeOfferId} for record ${req.recordId}`);
      }
    },

    onOfferChange(handler: OfferChangeHandler): void {
      offerChangeHandler = handler;
    },

    /** The test helpers' platform side: report the change now, answer what the handler answers. */
    async simulate(change: OfferChange): Promise<unknown> {
      if (!offerChangeHandler) throw new Error('sandbox platform: no offer change handler is registered');
      const result = await offerChangeHandler(change);
      // Only a change the gateway took moves the items (a refused accept leaves them with the user).
      await moveDepositAssets(change);
      await holdings.recordTrade(change);
      return result;
    },
    ...holdings.ledger,
  };
  return platform;
}

/**
 * The sandbox's purchase offers, several purchases in one statement (sendPurchasesInOne): an offer
 * already sent is answered again, else one is recorded with an id from the sequence and a bot chosen
 * by purchase id. A named prepared statement (planning it was ≈ 360 µs a call, bench/RESULTS.md),
 * the ids through an InitPlan so the generic plan is kept (db/prepared.ts); both are
 * checked by test/purchases/dispatch-plan.test.ts.
 */
export function sendPurchasesStatement(purchaseIds: readonly number[], expiresAt: Date) {
  return sql<{ purchase_id: number; trade_offer_id: string; expires_at: Date; bot_id: number; name: string; platform_id: string }>`/* prepared:sandbox_purchase_offers_send */
      with req as (
        select unnest(array(select unnest(${purchaseIds}::bigint[]))) as purchase_id
      ), old as (
        select o.purchase_id, o.trade_offer_id, o.expires_at, o.bot_id from sandbox_purchase_offers o join req using (purchase_id)
      ), enabled as (
        select id, row_number() over (order by id) - 1 as i, count(*) over () as n from bots where enabled = true
      ), ins as (
        insert into sandbox_purchase_offers (purchase_id, trade_offer_id, bot_id, expires_at)
        select r.purchase_id, nextval('sandbox_trade_offer_seq')::text, e.id, ${expiresAt.toISOString()}::timestamptz
          from (select * from req order by purchase_id) r join enabled e on e.i = abs(r.purchase_id) % e.n
         where not exists (select 1 from old where old.purchase_id = r.purchase_id)
        on conflict (purchase_id) do nothing
        returning purchase_id, trade_offer_id, expires_at, bot_id
      )
      select x.purchase_id, x.trade_offer_id, x.expires_at, bots.id as bot_id, bots.name, bots.platform_id
        from (select * from old union all select * from ins) x join bots on bots.id = x.bot_id`;
}
