import { describe, expect, it } from 'vitest';
import { exactNumber } from '../domain/money.js';
import { inexactNumberIn } from './json-body.js';

describe('inexactNumberIn (a number JSON.parse would round, with its key)', () => {
  it('15 significant digits pass, 16 that a double cannot hold are refused with their key', () => {
    expect(inexactNumberIn('{"amount": 123456789012.345}')).toBeUndefined(); // 15 characters
    expect(inexactNumberIn('{"amount": 1.0000000000000001}')).toEqual({ field: 'amount', token: '1.0000000000000001' });
    expect(inexactNumberIn('{"amount": 1.0000000000000000}')).toBeUndefined(); // 17 characters, exact
    expect(inexactNumberIn('{"a": -12345678901234567}')).toEqual({ field: 'a', token: '-12345678901234567' });
  });
  it('an exponent is always checked', () => {
    expect(inexactNumberIn('{"x": 1e2}')).toBeUndefined();
    expect(inexactNumberIn('{"x": 1.00000000000000001E+0}')).toEqual({ field: 'x', token: '1.00000000000000001E+0' });
  });
  it('digits inside strings are not numbers; escaped quotes do not end a string', () => {
    expect(inexactNumberIn('{"name": "AK-47 1.0000000000000001 \\" 99999999999999999", "n": 1}')).toBeUndefined();
    expect(inexactNumberIn('["12345678901234567890", "a\\\\", 1.0000000000000001]')).toEqual({ field: 'body', token: '1.0000000000000001' });
    expect(inexactNumberIn('{"a": "never ends \\" 1.0000000000000001')).toBeUndefined(); // not JSON: the scan still ends
  });
  it('the key is the last one before the number, nested or not, spaces before its colon included, as sent', () => {
    expect(inexactNumberIn('{"a": {"b\\"c" \n : [1, 2, 0.30000000000000001]}}')).toEqual({ field: 'b\\"c', token: '0.30000000000000001' });
    expect(inexactNumberIn('{"names": ["x", "y"], "max_price": 10.0000000000000001}')).toEqual({ field: 'max_price', token: '10.0000000000000001' });
    expect(inexactNumberIn('99999999999999999')).toEqual({ field: 'body', token: '99999999999999999' });
  });
  it('a body of 2 000 names and no long number: nothing', () => {
    const body = JSON.stringify({ game: 'csgo', names: Array.from({ length: 2000 }, (_, i) => `Item ${i} "x" (Field-Tested)`), n: 12.5 });
    expect(inexactNumberIn(body)).toBeUndefined();
  });
  it('the same answers as a character-by-character scan on 20 000 random valid bodies (escapes, keys, long numbers)', () => {
    /** The scan before strings were skipped with indexOf: the reference. */
    const reference = (text: string): { field: string; token: string } | undefined => {
      let key: string | undefined;
      for (let i = 0; i < text.length; ) {
        const c = text[i]!;
        if (c === '"') {
          const start = ++i;
          while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
          const end = i++;
          if (/^\s*:/.test(text.slice(i))) key = text.slice(start, end);
        } else if (c === '-' || (c >= '0' && c <= '9')) {
          const token = /^[-+.0-9eE]+/.exec(text.slice(i))![0];
          i += token.length;
          if (exactNumber(token) === undefined) return { field: key ?? 'body', token };
        } else i++;
      }
      return undefined;
    };
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
    const pieces = ['a', '\\', '"', '1', '.', 'e', ' ', '★', '\n', ':', ','];
    const str = () => Array.from({ length: rnd(12) }, () => pieces[rnd(pieces.length)]).join('');
    const num = () => [() => rnd(1000), () => 1 / (rnd(97) + 1), () => Number(`1.${'0'.repeat(rnd(20))}1`), () => rnd(2) ? 1e300 : -1.5e-7][rnd(4)]!();
    const value = (d: number): unknown => {
      const k = rnd(d > 2 ? 3 : 5);
      if (k === 0) return str();
      if (k === 1) return num();
      if (k === 2) return rnd(2) === 0;
      if (k === 3) return Array.from({ length: rnd(4) }, () => value(d + 1));
      return Object.fromEntries(Array.from({ length: rnd(4) }, () => [str(), value(d + 1)]));
    };
    let found = 0;
    for (let n = 0; n < 20_000; n++) {
      let text = JSON.stringify(value(0), null, rnd(2) ? 1 : undefined);
      if (rnd(3) === 0) text = text.replace(/\d+\.\d+/, '1.00000000000000000001'); // a number JSON cannot hold, somewhere
      const want = reference(text);
      if (want) found++;
      expect(inexactNumberIn(text), text).toEqual(want);
    }
    expect(found).toBeGreaterThan(1000);
  });
});
