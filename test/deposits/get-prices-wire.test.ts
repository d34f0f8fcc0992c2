// get-prices skips two per-request costs: Ajv's per-item walk (a hand-written check accepts only
// certainly valid bodies, Ajv words every error) and the schema serializer (one JSON.stringify).
// Both must be invisible on the wire: same bytes, same acceptance, same errors. The answer's lines
// are serialised once per price-book load and multiplier (quote-wire.ts).
import build from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { validatorCompiler } from '../../src/http/validation.js';
import { envelopeOf } from '../../src/http/schemas.js';
import { ok } from '../../src/http/envelope.js';
import { GetPricesRequest, QuoteResponse } from '../../src/modules/deposits/deposit-schemas.js';
import { createQuoteFragments, quoteAnswer, quoteFragment, quoteLines } from '../../src/modules/deposits/quote-wire.js';
import { packedLine, unpackQuote } from '../../src/modules/deposits/quote-pack.js';

const schemaSerializer = build(envelopeOf(QuoteResponse) as object);
const validate = validatorCompiler({ schema: GetPricesRequest, httpPart: 'body', method: 'POST', url: '/get-prices' }) as (
  d: unknown,
) => { value?: unknown; error?: { message: string; data?: unknown } };
// Ajv alone (the same schema content, another object: no fast check registered for it).
const ajvOnly = validatorCompiler({ schema: structuredClone(GetPricesRequest), httpPart: 'body', method: 'POST', url: '/get-prices' }) as typeof validate;

describe('get-prices wire', () => {
  it('the answer built from fragments is byte-identical to the response schema serializer', () => {
    const names = ['AK-47 | Redline (Field-Tested)', 'StatTrak™ M4A1-S | "Quoted" \\ back', '★ Karambit | Doppler (Factory New)', 'tab\there\nnew line', 'ünïcødé 𝔘', '</script>'];
    const quotes = names.map((name, i) => ({ name, price: i * 1234 + 7, originalPrice: i * 1500 + 10 }));
    quotes.push({ name: 'big', price: 999_999_999_999, originalPrice: 1_000_000_000_000 });
    const frags = quotes.map((q) => quoteFragment(q));
    const items = quotes.map((q) => ({ name: q.name, price: q.price / 1000, originalPrice: q.originalPrice / 1000 }));
    const sum = quotes.reduce((a, q) => a + q.price, 0);
    const envelope = (data: object) => Buffer.from(schemaSerializer(ok(data, 'prices quoted')));
    expect(quoteAnswer(frags, sum, 42)).toEqual(envelope({ id: 42, total: quotes.length, sum: sum / 1000, items }));
    expect(quoteAnswer(frags, sum)).toEqual(envelope({ total: quotes.length, sum: sum / 1000, items }));
    expect(quoteAnswer([], 0)).toEqual(envelope({ total: 0, sum: 0, items: null }));
    expect(quoteAnswer(frags.slice(0, 1), 7, 9007199254740991)).toEqual(envelope({ id: 9007199254740991, total: 1, sum: 0.007, items: items.slice(0, 1) }));
    expect(JSON.parse(quoteAnswer(frags, sum, 42).toString()).data.items).toEqual(items);
    // The stored lines (deposit_quotes.packed): 24 bytes per name, in the answer's order, each name's prices.
    const packed = quoteLines(frags);
    expect(packed).toEqual(Buffer.concat(quotes.map((q) => packedLine(q.name, q.price, q.originalPrice))));
    expect(packed.length).toBe(24 * quotes.length);
    const lookup = unpackQuote(packed);
    for (const q of quotes) expect(lookup(q.name)).toEqual({ price: q.price, original_price: q.originalPrice });
    expect(lookup('AK-47 | Redline (Field-Tested) ')).toBeUndefined();
    expect(quoteLines([]).length).toBe(0);
  });

  it('fragments are cached per multiplier and game, and made again when the deposit price changes', () => {
    let base = 1000;
    let calls = 0;
    const depositOf = (name: string) => (name === 'unpriced' ? undefined : name === 'gone' ? (base === 1000 ? base : undefined) : base);
    // As the price engine's entries: one object per name for good, its basis replaced on each publish.
    const entries = new Map<string, { readonly basis?: { deposit: number } }>();
    let published = new Date(0); // pricing.loadedAt(): a new Date on each publish
    const publish = () => (published = new Date(published.getTime() + 1));
    const pricing = {
      loadedAt: () => published,
      pricedItem: (_g: string, name: string) => {
        if (name === 'unpriced') return undefined;
        let e = entries.get(name);
        if (!e) {
          e = { get basis() { const d = depositOf(name); return d === undefined ? undefined : { deposit: d }; } };
          entries.set(name, e);
        }
        return e;
      },
      price: (m: { deposit_multiplier: number }, _g: string, name: string) => {
        calls++;
        return name === 'unpriced' ? undefined : { name, price: Math.round(base * Number(m.deposit_multiplier)), originalPrice: base };
      },
    };
    const fragmentsFor = createQuoteFragments(pricing as never);
    const half = { deposit_multiplier: 0.5 };
    expect(fragmentsFor(half, 'csgo')('a')!.price).toBe(500);
    expect(fragmentsFor(half, 'csgo')('a')!.price).toBe(500);
    expect(calls).toBe(1);
    expect(fragmentsFor({ deposit_multiplier: 0.9 }, 'csgo')('a')!.price).toBe(900); // another rate: its own entry
    expect(fragmentsFor(half, 'rust')('a')!.price).toBe(500);
    expect(calls).toBe(3);
    // Unpriced names are never remembered (any string may be sent), nor priced: their deposit price says so.
    expect(fragmentsFor(half, 'csgo')('unpriced')).toBeUndefined();
    expect(fragmentsFor(half, 'csgo')('unpriced')).toBeUndefined();
    expect(calls).toBe(3);
    // Published again, same deposit price: the fragment is kept (no new price asked).
    publish();
    expect(fragmentsFor(half, 'csgo')('a')!.price).toBe(500);
    expect(calls).toBe(3);
    expect(fragmentsFor(half, 'csgo')('gone')!.price).toBe(500);
    expect(calls).toBe(4);
    // Bases change only in a publish: until the next one the fragment is not checked again.
    base = 2000;
    expect(fragmentsFor(half, 'csgo')('a')!.price).toBe(500);
    expect(calls).toBe(4);
    // Published: a new deposit price makes that name's fragment again; a name no longer priced is not quoted.
    publish();
    expect(fragmentsFor(half, 'csgo')('a')!.price).toBe(1000);
    expect(fragmentsFor(half, 'csgo')('a')!.item.toString()).toBe('{"name":"a","price":1,"originalPrice":2}');
    expect(calls).toBe(5);
    expect(fragmentsFor(half, 'csgo')('gone')).toBeUndefined();
  });

  it('a valid body passes as Ajv would pass it, with no_deposit_intent defaulted to false', () => {
    const names = Array.from({ length: 2000 }, (_, i) => `name ${i}`);
    for (const body of [
      { game: 'csgo', marketHashNames: names },
      { game: 'rust', marketHashNames: ['a'], no_deposit_intent: true, extra: 1 },
      { game: 'tf2', marketHashNames: ['x'.repeat(512)], no_deposit_intent: false },
    ]) {
      const a = structuredClone(body);
      const b = structuredClone(body);
      expect(validate(a)).toEqual({ value: a });
      expect(ajvOnly(b)).toEqual({ value: b });
      expect(a).toEqual(b);
      expect((a as { no_deposit_intent: boolean }).no_deposit_intent).toBe(body.no_deposit_intent ?? false);
    }
  });

  it('every invalid body gets exactly the errors Ajv gives (field, code, message)', () => {
    const astral = '𝔘'.repeat(512); // 1024 UTF-16 units, 512 code points: valid for Ajv
    const bodies: unknown[] = [
      null,
      [],
      'text',
      {},
      { game: 'chess', marketHashNames: ['a'] },
      { game: 'csgo' },
      { game: 'csgo', marketHashNames: [] },
      { game: 'csgo', marketHashNames: Array.from({ length: 2001 }, () => 'a') },
      { game: 'csgo', marketHashNames: ['a', ''] },
      { game: 'csgo', marketHashNames: ['a', 'x'.repeat(513)] },
      { game: 'csgo', marketHashNames: ['a', 5, null] },
      { game: 'csgo', marketHashNames: 'a' },
      { game: 'csgo', marketHashNames: ['a'], no_deposit_intent: 'yes' },
      { game: 'csgo', marketHashNames: [astral] },
      { game: 'csgo', marketHashNames: [astral + '𝔘'] },
    ];
    for (const body of bodies) {
      const fast = validate(structuredClone(body));
      const ajv = ajvOnly(structuredClone(body));
      expect(fast).toEqual(ajv);
    }
    // The edges are refused (not silently accepted by the fast path) with the spec's codes.
    const tooMany = validate({ game: 'csgo', marketHashNames: Array.from({ length: 2001 }, () => 'a') });
    expect(tooMany.error?.data).toEqual([{ field: 'GetPricesRequest.marketHashNames', code: 'len', message: 'marketHashNames must NOT have more than 2000 items' }]);
    const tooLong = validate({ game: 'csgo', marketHashNames: ['a', 'x'.repeat(513)] });
    expect(tooLong.error?.data).toEqual([{ field: 'GetPricesRequest.marketHashNames[1]', code: 'len', message: 'marketHashNames[1] must NOT have more than 512 characters' }]);
    expect(validate({ game: 'csgo', marketHashNames: [astral] }).error).toBeUndefined();
  });
});
