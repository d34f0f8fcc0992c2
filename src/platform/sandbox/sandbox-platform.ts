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
  PlatformUnavailableError,
  PlatformUserError,
  type Bot,
  type OfferChange,
  type OfferChangeHandler,
  type PlatformItem,
  type PlatformUser,
  type SentOffer,
  type TradingPlatform,
} from '../port.js';
import { isRevokedAfterCheckPartner, isSilentPurchasePartner, isUnavailablePartner, sandboxUser } from './users.js';
import { sandboxInventory } from './inventory.js';

export interface SandboxDeps {
  db: Db;
  clock: Clock;
  offerTtlSeconds: number;
  /** Items the sandbox may put into inventories, per game (the price book's names and phases). */
  itemsFor(game: Game): readonly { name: string; phase?: string }[];
}

/** The sandbox adapter: the port plus `simulate` (always present here). */
export type SandboxPlatform = TradingPlatform & { simulate(change: OfferChange): Promise<unknown> };

export function createSandboxPlatform(deps: SandboxDeps): SandboxPlatform {
  const { db, clock } = deps;
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

  return {
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
      return sandboxInventory(partner, game, deps.itemsFor(game));
    },

    async sendDepositOffer(req): Promise<SentOffer> {
      sandboxUser(req.partner, req.token);
      if (isRevokedAfterCheckPartner(req.partner)) throw new PlatformUserError('trade_link_revoked');
      // Silence: the caller's DEPOSIT_TIMEOUT_MS decides (spec 4.5 rule 8).
      if (isUnavailablePartner(req.partner)) return new Promise<SentOffer>(() => {});
      return sendOffer(req.depositId);
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
      const existing = await sent();
      if (existing) return existing;
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

    onOfferChange(handler: OfferChangeHandler): void {
      offerChangeHandler = handler;
    },

    /** The test helpers' platform side: report the change now, answer what the handler answers. */
    async simulate(change: OfferChange): Promise<unknown> {
      if (!offerChangeHandler) throw new Error('sandbox platform: no offer change handler is registered');
      return offerChangeHandler(change);
    },
  };
}
