// The deposit quote stage (spec 4.2, 4.4, 4.6): what a user's items are worth, before any commit.
// inventory (a 5-minute pricing snapshot), get-prices (a draft trade holding the quote) and the
// side-effect-free preview. Platform calls go through callPlatform (deposit-platform.ts).
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import type { Game } from '../../domain/games.js';
import { forbidden, validationError } from '../../domain/errors.js';
import { MoneyError, millsToUsd, sumMills } from '../../domain/money.js';
import type { PlatformItem, PlatformUser, TradingPlatform } from '../../platform/port.js';
import type { SnapshotItem } from '../../db/tables/deposits.js';
import type { MerchantRow } from '../../db/tables/merchants.js';
import type { PricingService, Quote } from '../pricing/pricing-service.js';
import * as repo from './deposit-repo.js';
import { callPlatform } from './deposit-platform.js';
import { createQuoteFragments, quoteAnswer, quoteLines, type QuoteFragment } from './quote-wire.js';

export interface TradeKey {
  game: Game;
  partner: number;
  token: string;
}

export interface GetPricesRequest {
  game: Game;
  marketHashNames: string[];
  no_deposit_intent?: boolean;
}

export interface PreviewRequest {
  game: Game;
  partner?: number;
  token?: string;
  items?: { asset_id: string; name: string; icon_url?: string }[];
}

export interface QuoteDeps {
  db: Db;
  config: Pick<Config, 'depositTimeoutMs' | 'quoteTtlSeconds'>;
  clock: Clock;
  platform: Pick<TradingPlatform, 'checkTradeLink' | 'loadInventory'>;
  pricing: Pick<PricingService, 'quote' | 'quoteItem' | 'price' | 'pricedItem' | 'assertFresh' | 'loadedAt' | 'version'>;
}

function snapshotItem(it: PlatformItem, q: Quote): SnapshotItem {
  return {
    asset_id: it.assetId, name: it.marketHashName, price: q.price, original_price: q.originalPrice, ...q.card, ...(q.basisId !== undefined ? { basis_id: q.basisId } : {}),
    ...(it.float !== undefined ? { float: it.float } : {}), ...(it.paintSeed !== undefined ? { paint_seed: it.paintSeed } : {}),
  };
}

/** Inventory item card of spec 2.3. */
function cardView(s: SnapshotItem) {
  return {
    id: s.asset_id,
    name: s.name,
    price: millsToUsd(s.price),
    image_url: s.image_url ?? '',
    ...(s.exterior ? { exterior: s.exterior } : {}),
    ...(s.rarity ? { rarity: s.rarity } : {}),
    ...(s.rarity_color ? { rarity_color: s.rarity_color } : {}),
    ...(s.phase ? { phase: s.phase } : {}),
  };
}

export function createQuoteStage(deps: QuoteDeps) {
  const { db, config, clock, platform, pricing } = deps;
  const fragmentsFor = createQuoteFragments(pricing);
  let calls = 0; // get-prices calls of this instance (quote-wire.ts QuoteFragment.call)
  const plus = (seconds: number) => new Date(clock.now().getTime() + seconds * 1000);

  // User errors become 400 domain codes, failure or silence 500 integration service error.
  const checkUser = (k: TradeKey): Promise<PlatformUser> => callPlatform(() => platform.checkTradeLink(k.game, k.partner, k.token), config.depositTimeoutMs);
  const loadItems = (k: TradeKey): Promise<PlatformItem[]> => callPlatform(() => platform.loadInventory(k.game, k.partner, k.token), config.depositTimeoutMs);

  /** Priced, tradable items of the user's live inventory; the others are omitted. */
  async function pricedInventory(merchant: MerchantRow, k: TradeKey): Promise<SnapshotItem[]> {
    const items = await loadItems(k);
    const out: SnapshotItem[] = [];
    for (const it of items) {
      if (it.tradable === false) continue; // cannot be deposited now
      const q = pricing.quoteItem(merchant, k.game, it);
      if (q) out.push(snapshotItem(it, q));
    }
    return out;
  }

  /** 4.2 inventory: the priced items, remembered as the snapshot create-deposit prices from. */
  async function inventory(merchant: MerchantRow, req: TradeKey) {
    pricing.assertFresh();
    await checkUser(req);
    const items = await pricedInventory(merchant, req);
    await repo.upsertSnapshot(db, { merchantId: merchant.id, game: req.game, partner: req.partner, items, expiresAt: plus(config.quoteTtlSeconds) });
    return {
      items: items.map(cardView),
      total: items.length,
      sum: millsToUsd(sumMills(items.map((i) => i.price))),
      game: req.game,
      max_items: merchant.max_items,
    };
  }

  /**
   * 4.4 get-prices: quotes by name; unless no_deposit_intent, a draft trade (status new) holds them.
   * Returns the answer envelope as UTF-8 JSON (quote-wire.ts), committed before it is returned.
   */
  async function getPrices(merchant: MerchantRow, req: GetPricesRequest): Promise<Buffer> {
    pricing.assertFresh();
    // One pass over up to 2 000 names: first occurrence only, unpriced names left out. A fragment
    // taken by this call is marked with its number (no await in the loop, so no other call runs
    // meanwhile): a repeated name costs no set of its own.
    const lookup = fragmentsFor(merchant, req.game);
    const call = ++calls;
    const frags: QuoteFragment[] = [];
    let sum = 0;
    for (const n of req.marketHashNames) {
      const f = lookup(n);
      if (!f || f.call === call) continue;
      f.call = call;
      frags.push(f);
      sum += f.price;
    }
    if (!Number.isSafeInteger(sum)) throw new MoneyError('sum overflow'); // the check sumMills makes for every other total
    if (frags.length === 0 || req.no_deposit_intent) return quoteAnswer(frags, sum);
    const draft = { merchantId: merchant.id, game: req.game, quoteExpiresAt: plus(config.quoteTtlSeconds), priceVersion: pricing.version() };
    const id = await repo.insertQuoteDraft(db, draft, quoteLines(frags));
    return quoteAnswer(frags, sum, id);
  }

  /** 4.6 deposit-preview: no record, no snapshot. */
  async function preview(merchant: MerchantRow, req: PreviewRequest) {
    if (!merchant.deposit_preview_enabled) throw forbidden('deposit preview is not enabled for this merchant');
    pricing.assertFresh();
    let items: Record<string, unknown>[];
    let prices: number[];
    if (req.items && req.items.length > 0) {
      const quoted = req.items
        .map((it) => ({ it, q: pricing.quote(merchant, req.game, it.name) }))
        .filter((x): x is { it: (typeof x)['it']; q: Quote } => x.q !== undefined);
      items = quoted.map(({ it, q }) => ({ id: it.asset_id, name: it.name, price: millsToUsd(q.price), ...(q.card.phase ? { phase: q.card.phase } : {}) }));
      prices = quoted.map((x) => x.q.price);
    } else if (req.partner !== undefined && req.token !== undefined) {
      const key = { game: req.game, partner: req.partner, token: req.token };
      await checkUser(key);
      const priced = await pricedInventory(merchant, key);
      items = priced.map(cardView);
      prices = priced.map((p) => p.price);
    } else {
      throw validationError([
        { field: 'items', code: 'required', message: 'send items, or partner and token' },
        ...(req.partner === undefined ? [{ field: 'partner', code: 'required', message: 'partner is required unless items is sent' }] : []),
        ...(req.token === undefined ? [{ field: 'token', code: 'required', message: 'token is required unless items is sent' }] : []),
      ]);
    }
    return { items, total: items.length, sum: millsToUsd(sumMills(prices)), game: req.game, max_items: merchant.max_items };
  }

  return { inventory, getPrices, preview, checkUser, pricedInventory, loadItems };
}

export type QuoteStage = ReturnType<typeof createQuoteStage>;
