// get-prices on the wire: up to 2 000 lines per call, each serialised once per price-book load and
// deposit multiplier instead of on every call. An answer is then a join of cached fragments; the
// bytes are those the response schema's serializer wrote (test/deposits/get-prices-wire.test.ts),
// and the quote's stored lines those of JSON.stringify([[name, price, original_price], …]).
import type { Game } from '../../domain/games.js';
import { millsToUsd } from '../../domain/money.js';
import type { MerchantRow } from '../merchants/merchant-repo.js';
import type { PricingService, Quote } from '../pricing/pricing-service.js';

/** One priced name: its price in mills, its answer item and its stored quote line, as JSON. */
export interface QuoteFragment {
  price: number;
  item: string;
  line: string;
}

/** At most this many (multiplier, game) pairs keep fragments (merchants mostly share a few), each at most the
 * priced names of one game; the oldest pair goes first. */
const MAX_CACHES = 8;

export function quoteFragment(q: Omit<Quote, 'card'>): QuoteFragment {
  const name = JSON.stringify(q.name);
  return {
    price: q.price,
    item: `{"name":${name},"price":${millsToUsd(q.price)},"originalPrice":${millsToUsd(q.originalPrice)}}`,
    line: `[${name},${q.price},${q.originalPrice}]`,
  };
}

/**
 * Fragments of priced names, per deposit multiplier, dropped when the price book is reloaded.
 * Unpriced names are not remembered (any string may be asked), so memory stays within the book's
 * size per multiplier.
 */
export function createQuoteFragments(pricing: Pick<PricingService, 'price' | 'loadedAt'>) {
  let book: Date | undefined;
  const byRate = new Map<string, Map<string, QuoteFragment>>(); // key: multiplier and game
  /** The lookup of one call: merchant and game resolved once, then a name costs one Map get. */
  return function fragmentsFor(merchant: Pick<MerchantRow, 'deposit_multiplier'>, game: Game): (name: string) => QuoteFragment | undefined {
    const loaded = pricing.loadedAt();
    if (loaded !== book) {
      byRate.clear();
      book = loaded;
    }
    const key = `${String(merchant.deposit_multiplier)} ${game}`;
    let cache = byRate.get(key);
    if (!cache) {
      if (byRate.size >= MAX_CACHES) byRate.delete(byRate.keys().next().value!);
      cache = new Map();
      byRate.set(key, cache);
    }
    const c = cache;
    return (name) => {
      let f = c.get(name);
      if (!f) {
        const q = pricing.price(merchant, game, name);
        if (!q) return undefined;
        f = quoteFragment(q);
        c.set(name, f);
      }
      return f;
    };
  };
}

/** The whole answer envelope: keys in the schema serializer's order (optional id last). */
export function quoteAnswer(frags: QuoteFragment[], sumMills: number, id?: number): string {
  if (frags.length === 0) return '{"success":true,"message":"prices quoted","data":{"total":0,"sum":0,"items":null}}';
  let items = '';
  for (let i = 0; i < frags.length; i++) items += (i === 0 ? '' : ',') + frags[i].item;
  const tail = id === undefined ? '' : `,"id":${id}`;
  return `{"success":true,"message":"prices quoted","data":{"total":${frags.length},"sum":${millsToUsd(sumMills)},"items":[${items}]${tail}}}`;
}

/** The quote's lines as stored (deposit_quotes.lines). */
export function quoteLines(frags: QuoteFragment[]): string {
  let out = '';
  for (let i = 0; i < frags.length; i++) out += (i === 0 ? '' : ',') + frags[i].line;
  return `[${out}]`;
}
