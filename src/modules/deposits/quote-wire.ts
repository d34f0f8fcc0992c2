// get-prices on the wire: up to 2 000 lines per call, each serialised once per deposit price and
// deposit multiplier instead of on every call, and kept as UTF-8 bytes. An answer is then a copy of
// cached fragments into one Buffer: no string of ≈ 180 KB to flatten, measure and encode on every
// call (names with ★ or ™ make such strings two-byte, and their encoding cost ≈ 1.5 ms of CPU per call).
// The bytes are those the response schema's serializer wrote (test/deposits/get-prices-wire.test.ts);
// the quote's stored lines are packed (quote-pack.ts).
import type { Game } from '../../domain/games.js';
import { millsToUsd } from '../../domain/money.js';
import type { MerchantRow } from '../../db/tables/merchants.js';
import type { PricedItem, PricingService, Quote } from '../pricing/pricing-service.js';
import { LINE_BYTES, packedLine } from './quote-pack.js';

/** One priced name: its price in mills, its answer item (UTF-8 JSON) and its stored quote line (packed). */
export interface QuoteFragment {
  price: number;
  /** the deposit base price (mills) it was made from: a new one makes a new fragment */
  original: number;
  item: Buffer;
  line: Buffer;
  /** The call that last took this fragment (quote.ts: a name asked twice in one call is quoted once). */
  call: number;
  /** The name's price entry (its basis is replaced on each publish): a call checks it instead of a second lookup. */
  priced?: PricedItem;
  /** The publish (pricing.loadedAt()) at which the entry was last checked: until the next one, nothing to check. */
  checkedAt?: Date;
}

/** At most this many (multiplier, game) pairs keep fragments (merchants mostly share a few), each at most the
 * priced names of one game; the oldest pair goes first. */
const MAX_CACHES = 8;

export function quoteFragment(q: Omit<Quote, 'card'>, priced?: PricedItem): QuoteFragment {
  const name = JSON.stringify(q.name);
  return {
    priced,
    price: q.price,
    original: q.originalPrice,
    item: Buffer.from(`{"name":${name},"price":${millsToUsd(q.price)},"originalPrice":${millsToUsd(q.originalPrice)}}`),
    line: packedLine(q.name, q.price, q.originalPrice),
    call: 0,
    checkedAt: undefined, // set by the lookup; declared here so every fragment has one shape
  };
}

/**
 * Fragments of priced names, per deposit multiplier and game, each kept while its name's deposit
 * price holds: a refresh publishes new prices many times a minute, and dropping every fragment on
 * each publish made the calls during a refresh build all 2 000 again. Unpriced names are not
 * remembered (any string may be asked), so memory stays within the book's size per multiplier.
 */
export function createQuoteFragments(pricing: Pick<PricingService, 'price' | 'pricedItem' | 'loadedAt'>) {
  const byRate = new Map<string, Map<string, QuoteFragment>>(); // key: multiplier and game
  /** The lookup of one call: merchant and game resolved once, then a name costs one Map get while its price holds. */
  return function fragmentsFor(merchant: Pick<MerchantRow, 'deposit_multiplier'>, game: Game): (name: string) => QuoteFragment | undefined {
    const key = `${String(merchant.deposit_multiplier)} ${game}`;
    let cache = byRate.get(key);
    if (!cache) {
      if (byRate.size >= MAX_CACHES) byRate.delete(byRate.keys().next().value!);
      cache = new Map();
      byRate.set(key, cache);
    }
    const c = cache;
    // Bases change only when prices are published, and each publish has a new loadedAt: a fragment
    // checked since the last one holds without reading its entry (reading entry → basis → deposit of
    // 2 000 names, objects of many shapes scattered over the heap, cost more than the Map get itself:
    // 244–316 → 405–486 req/s in the bench, alternating).
    const published = pricing.loadedAt();
    return (name) => {
      let f = c.get(name);
      if (f !== undefined && f.checkedAt === published) return f;
      // The fragment holds while its entry's deposit price is the one it was made from: one Map get
      // per name (the price book's own lookup, in a map of every priced item, cost as much again).
      if (f?.priced && f.priced.basis?.deposit === f.original) {
        f.checkedAt = published;
        return f;
      }
      const priced = pricing.pricedItem(game, name);
      const d = priced?.basis?.deposit;
      if (d === undefined || !(d > 0)) {
        if (f) c.delete(name);
        return undefined;
      }
      const q = pricing.price(merchant, game, name);
      if (!q) return undefined;
      f = quoteFragment(q, priced);
      f.checkedAt = published;
      c.set(name, f);
      return f;
    };
  };
}

/** head, then the fragments' items separated by commas, then tail: one Buffer, one copy of each. */
function joined(head: string, frags: readonly QuoteFragment[], tail: string): Buffer {
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail) + frags.length - 1;
  for (let i = 0; i < frags.length; i++) size += frags[i].item.length;
  const out = Buffer.allocUnsafe(size); // every byte is written below
  let at = out.write(head, 0);
  for (let i = 0; i < frags.length; i++) {
    if (i > 0) out[at++] = 0x2c; // ,
    const b = frags[i].item;
    out.set(b, at);
    at += b.length;
  }
  out.write(tail, at);
  return out;
}

const EMPTY_ANSWER = '{"success":true,"message":"prices quoted","data":{"total":0,"sum":0,"items":null}}';

/** The whole answer envelope: keys in the schema serializer's order (optional id last). */
export function quoteAnswer(frags: readonly QuoteFragment[], sumMills: number, id?: number): Buffer {
  if (frags.length === 0) return Buffer.from(EMPTY_ANSWER);
  const tail = id === undefined ? ']}}' : `],"id":${id}}}`;
  return joined(`{"success":true,"message":"prices quoted","data":{"total":${frags.length},"sum":${millsToUsd(sumMills)},"items":[`, frags, tail);
}

/** The quote's lines as stored (deposit_quotes.packed, quote-pack.ts). */
export function quoteLines(frags: readonly QuoteFragment[]): Buffer {
  const out = Buffer.allocUnsafe(frags.length * LINE_BYTES);
  for (let i = 0; i < frags.length; i++) out.set(frags[i].line, i * LINE_BYTES);
  return out;
}
