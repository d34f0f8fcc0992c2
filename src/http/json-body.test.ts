import { describe, expect, it } from 'vitest';
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
});
