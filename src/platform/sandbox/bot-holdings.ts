// The sandbox bots' side of the platform: what each bot holds (sandbox_bot_items) and the trades
// it made (sandbox_trades), recorded when the gateway took an offer change, so that bot stock and
// reconciliation read the sandbox the way they read Steam (the port's BotLedgerReader).
import { sql } from 'kysely';
import { batched } from '../../db/batched.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import type { Game } from '../../domain/games.js';
import { phaseOf } from '../../domain/phases.js';
import type { BotItem, OfferChange, PlatformTrade } from '../port.js';
import { sandboxInventory } from './inventory.js';

/** An item put into a sandbox bot by hand (`giveBotItems`): what an operator would deposit with the bot account itself. */
export interface SandboxBotItem {
  assetId: string;
  marketHashName: string;
  paintIndex?: number;
  /** Trade protection: not tradable before this. */
  tradableAfter?: Date;
}

export interface BotHoldingsDeps {
  db: Db;
  clock: Clock;
  itemsFor(game: Game): readonly { name: string; phase?: string }[];
  holdSeconds?: Record<Game, number>;
}

/**
 * The trades of accepted deposits (each deposit's latest offer still standing) and their assets
 * leaving their users, in one statement; answers what each bot received. A named prepared statement
 * (db/prepared.ts): planning it cost as much as running it (bench/RESULTS.md); the ids
 * through an InitPlan so that the generic plan is kept. Both are tested (test/deposits/accept-plan.test.ts).
 */
export function receiveDepositTradesStatement(depositIds: readonly number[]) {
  return sql<{ deposit_id: string; bot_id: number; game: Game; partner: number; asset_ids: string[] }>`/* prepared:sandbox_deposit_trades */
      with o as (select distinct on (deposit_id) deposit_id, trade_offer_id, bot_id, game, partner, asset_ids from sandbox_deposit_offers
                  where deposit_id = any(array(select unnest(${depositIds}::bigint[]))) and canceled_at is null
                  order by deposit_id, created_at desc),
           t as (insert into sandbox_trades (trade_offer_id, offer_kind, record_id, bot_id)
                 select o.trade_offer_id, 'deposit', o.deposit_id, o.bot_id from o order by o.trade_offer_id
                 on conflict (trade_offer_id) do nothing returning record_id, bot_id),
           departed as (insert into sandbox_departed_assets (game, partner, asset_id, deposit_id)
                 select o.game, o.partner, a.asset_id, o.deposit_id from o, unnest(o.asset_ids) as a(asset_id)
                  where o.game is not null order by o.deposit_id, a.asset_id
                 on conflict do nothing)
      select o.deposit_id, t.bot_id, o.game, o.partner, o.asset_ids from t join o on o.deposit_id = t.record_id where o.game is not null`;
}

export function createBotHoldings(deps: BotHoldingsDeps) {
  const { db, clock } = deps;

  /** Items into bots (one statement); an item that left its bot comes back. A deposit's items name the deposit. */
  async function upsertItems(given: readonly { botId: number; game: Game; depositId: number | null; item: SandboxBotItem }[]): Promise<void> {
    // One row per item: a statement may not upsert a row twice (the last one given wins).
    const rows = [...new Map(given.map((r) => [`${r.botId}:${r.game}:${r.item.assetId}`, r])).values()];
    if (rows.length === 0) return;
    // A named prepared statement (db/prepared.ts), as the read of the offers: on every acceptance.
    await sql`/* prepared:sandbox_bot_items_upsert */
      insert into sandbox_bot_items (bot_id, game, asset_id, market_hash_name, paint_index, tradable_after, deposit_id)
      select a.bot_id, a.game, a.asset_id, a.name, a.paint, a.tradable_after, a.deposit_id
        from unnest(${rows.map((r) => r.botId)}::bigint[], ${rows.map((r) => r.game)}::text[], ${rows.map((r) => r.item.assetId)}::text[],
                    ${rows.map((r) => r.item.marketHashName)}::text[], ${rows.map((r) => r.item.paintIndex ?? null)}::int[],
                    ${rows.map((r) => r.item.tradableAfter?.toISOString() ?? null)}::timestamptz[], ${rows.map((r) => r.depositId)}::bigint[])
             as a(bot_id, game, asset_id, name, paint, tradable_after, deposit_id)
       order by a.bot_id, a.game, a.asset_id
      on conflict (bot_id, game, asset_id) do update set gone_at = null, gone_trade_offer_id = null, tradable_after = excluded.tradable_after,
        deposit_id = coalesce(excluded.deposit_id, sandbox_bot_items.deposit_id), market_hash_name = excluded.market_hash_name,
        paint_index = excluded.paint_index`.execute(db);
  }

  /**
   * The bots' side of a change the gateway took: an accepted offer is a trade (sandbox_trades);
   * a deposit's assets arrive in its bot (in trade protection when accepted with a hold), a
   * purchase's item leaves its bot; a reversal undoes both.
   */
  async function recordTrade(change: OfferChange): Promise<void> {
    const offers = change.offer === 'deposit'
      ? sql`(select trade_offer_id, bot_id from sandbox_deposit_offers where deposit_id = ${change.recordId} and canceled_at is null order by created_at desc limit 1)`
      : sql`(select trade_offer_id, bot_id from sandbox_purchase_offers where purchase_id = ${change.recordId})`;
    if (change.change === 'accepted') {
      if (change.offer === 'deposit') return receiveDepositAssets.add(change);
      const t = await sql<{ trade_offer_id: string; bot_id: number }>`
        insert into sandbox_trades (trade_offer_id, offer_kind, record_id, bot_id)
        select o.trade_offer_id, ${change.offer}, ${change.recordId}, o.bot_id from ${offers} o
        on conflict (trade_offer_id) do nothing returning trade_offer_id, bot_id`.execute(db);
      const trade = t.rows[0];
      if (!trade) return;
      // The purchase gives the item its listing names: a bot listing's asset, or a deposited one.
      await sql`
        update sandbox_bot_items i set gone_at = now(), gone_trade_offer_id = ${trade.trade_offer_id}
          from purchases p join listings l on l.id = p.listing_id
         where p.id = ${change.recordId} and i.gone_at is null
           and i.asset_id = coalesce(l.asset_id, case when l.source = 'deposit' then split_part(l.source_ref, ':', 3) end)`.execute(db);
    } else if (change.change === 'reverted') {
      const t = await sql<{ trade_offer_id: string }>`
        update sandbox_trades set reverted_at = coalesce(reverted_at, now())
         where offer_kind = ${change.offer} and record_id = ${change.recordId} returning trade_offer_id`.execute(db);
      for (const { trade_offer_id } of t.rows) {
        if (change.offer === 'deposit') await sql`update sandbox_bot_items set gone_at = coalesce(gone_at, now()) where deposit_id = ${change.recordId}`.execute(db);
        else await sql`update sandbox_bot_items set gone_at = null, gone_trade_offer_id = null where gone_trade_offer_id = ${trade_offer_id}`.execute(db);
      }
    }
  }

  /**
   * Deposits' trades, their assets leaving their users and the offers they came from in one
   * statement (each deposit's latest offer still standing), then their assets into the bots in one
   * more: the concurrent acceptances together (db/batched.ts).
   */
  const receiveDepositAssets = batched<OfferChange, void>(async (changes) => {
    const o = await receiveDepositTradesStatement([...new Set(changes.map((c) => c.recordId))]).execute(db);
    const byDeposit = new Map(o.rows.map((r) => [Number(r.deposit_id), r]));
    const rows: { botId: number; game: Game; depositId: number; item: SandboxBotItem }[] = [];
    const seen = new Set<number>();
    for (const change of changes) {
      const offer = byDeposit.get(change.recordId);
      if (!offer || seen.has(change.recordId)) continue;
      seen.add(change.recordId);
      const held = new Map(sandboxInventory(Number(offer.partner), offer.game, deps.itemsFor(offer.game)).map((it) => [it.assetId, it]));
      const holdMs = change.hold === false ? 0 : change.holdEndsAt ? change.holdEndsAt.getTime() - clock.now().getTime() : (deps.holdSeconds?.[offer.game] ?? 0) * 1000;
      const tradableAfter = holdMs > 0 ? new Date(clock.now().getTime() + holdMs) : undefined;
      for (const assetId of offer.asset_ids) {
        const it = held.get(assetId);
        if (it) rows.push({ botId: offer.bot_id, game: offer.game, depositId: change.recordId, item: { assetId, marketHashName: it.marketHashName, ...(it.paintIndex !== undefined ? { paintIndex: it.paintIndex } : {}), ...(tradableAfter ? { tradableAfter } : {}) } });
      }
    }
    await upsertItems(rows);
    return changes.map(() => undefined);
  });

  return {
    recordTrade,

    /** The bots' holdings as the port reads them, and the helpers that change them by hand. */
    ledger: {
      /** Puts items into a bot's inventory, as if received outside the gateway (tests, operator stock). */
      giveBotItems: (botId: number, game: Game, items: readonly SandboxBotItem[]): Promise<void> =>
        upsertItems(items.map((item) => ({ botId, game, depositId: null, item }))),

      /** Takes items out of a bot's inventory, as if moved away outside the gateway. */
      async takeBotItems(botId: number, game: Game, assetIds: readonly string[]): Promise<void> {
        await sql`update sandbox_bot_items set gone_at = coalesce(gone_at, now())
                   where bot_id = ${botId} and game = ${game} and asset_id = any(${[...assetIds]}::text[])`.execute(db);
      },

      async botInventory(botId: number, game: Game): Promise<BotItem[]> {
        const r = await sql<{ asset_id: string; market_hash_name: string; paint_index: number | null; tradable_after: Date | null; deposit_id: string | null }>`
          select asset_id, market_hash_name, paint_index, tradable_after, deposit_id::text from sandbox_bot_items
           where bot_id = ${botId} and game = ${game} and gone_at is null order by asset_id`.execute(db);
        const now = clock.now().getTime();
        return r.rows.map((row) => {
          const paintIndex = row.paint_index ?? undefined;
          const phase = phaseOf({ marketHashName: row.market_hash_name, paintIndex });
          return {
            assetId: row.asset_id, marketHashName: row.market_hash_name,
            ...(paintIndex !== undefined ? { paintIndex } : {}), ...(phase ? { phase } : {}),
            ...(row.tradable_after && new Date(row.tradable_after).getTime() > now ? { tradable: false } : {}),
            ...(row.deposit_id ? { depositId: Number(row.deposit_id), depositAssetId: row.asset_id } : {}),
          };
        });
      },

      async botTrades(botId: number, since: Date): Promise<PlatformTrade[]> {
        const r = await sql<{ trade_id: string; trade_offer_id: string; offer_kind: 'deposit' | 'purchase'; record_id: string; accepted_at: Date; reverted_at: Date | null }>`
          select trade_id::text, trade_offer_id, offer_kind, record_id::text, accepted_at, reverted_at from sandbox_trades
           where bot_id = ${botId} and accepted_at >= ${since.toISOString()}::timestamptz order by accepted_at desc, trade_id desc`.execute(db);
        return r.rows.map((t) => ({
          botId, tradeId: t.trade_id, tradeOfferId: t.trade_offer_id, record: { kind: t.offer_kind, recordId: Number(t.record_id) },
          at: new Date(t.accepted_at), status: t.reverted_at ? ('reversed' as const) : ('complete' as const),
        }));
      },
    },
  };
}
