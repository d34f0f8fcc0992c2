// get-prices skips two per-request costs: Ajv's per-item walk (a hand-written check accepts only
// certainly valid bodies, Ajv words every error) and the schema serializer (one JSON.stringify).
// Both must be invisible on the wire: same bytes, same acceptance, same errors.
import build from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { validatorCompiler } from '../../src/http/validation.js';
import { envelopeOf } from '../../src/http/schemas.js';
import { ok } from '../../src/http/envelope.js';
import { GetPricesRequest, QuoteResponse } from '../../src/modules/deposits/deposit-schemas.js';

const schemaSerializer = build(envelopeOf(QuoteResponse) as object);
const validate = validatorCompiler({ schema: GetPricesRequest, httpPart: 'body', method: 'POST', url: '/get-prices' }) as (
  d: unknown,
) => { value?: unknown; error?: { message: string; data?: unknown } };
// Ajv alone (the same schema content, another object: no fast check registered for it).
const ajvOnly = validatorCompiler({ schema: structuredClone(GetPricesRequest), httpPart: 'body', method: 'POST', url: '/get-prices' }) as typeof validate;

describe('get-prices wire', () => {
  it('the hand-built answer is byte-identical to the response schema serializer', () => {
    const names = ['AK-47 | Redline (Field-Tested)', 'StatTrak™ M4A1-S | "Quoted" \\ back', '★ Karambit | Doppler (Factory New)', 'tab\there\nnew line', 'ünïcødé 𝔘'];
    const items = names.map((name, i) => ({ name, price: (i * 1234 + 7) / 1000, originalPrice: (i * 1500 + 10) / 1000 }));
    const cases = [
      { total: items.length, sum: 12.345, items, id: 42 }, // the service's key order
      { total: items.length, sum: 0.001, items },
      { total: 0, sum: 0, items: null },
      { total: 1, sum: 1000000, items: [{ name: 'x', price: 1000000, originalPrice: 0.5 }], id: 9007199254740991 },
    ];
    for (const c of cases) expect(JSON.stringify(ok(c, 'prices quoted'))).toBe(schemaSerializer(ok(c, 'prices quoted')));
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
