import { describe, expect, it } from 'vitest';
import { digestsEqual, sha256Hex } from './secrets.js';

describe('digestsEqual', () => {
  const d = sha256Hex('sk_test');
  it('is true for the same digest, false when one character differs (first, middle, last)', () => {
    expect(digestsEqual(d, sha256Hex('sk_test'))).toBe(true);
    for (const at of [0, 31, 63]) {
      const other = d.slice(0, at) + (d[at] === '0' ? '1' : '0') + d.slice(at + 1);
      expect(digestsEqual(d, other)).toBe(false);
      expect(digestsEqual(other, d)).toBe(false);
    }
    expect(digestsEqual(d, sha256Hex('sk_tesT'))).toBe(false);
  });
  it('is false for anything but two 64-character digests', () => {
    expect(digestsEqual(d, d.slice(0, 63))).toBe(false);
    expect(digestsEqual(d + '0', d + '0')).toBe(false);
    expect(digestsEqual('', '')).toBe(false);
  });
  it('compares again after a mismatch (its scratch buffers hold nothing over)', () => {
    expect(digestsEqual(d, sha256Hex('x'))).toBe(false);
    expect(digestsEqual(sha256Hex('x'), sha256Hex('x'))).toBe(true);
    expect(digestsEqual(d, d)).toBe(true);
  });
});
