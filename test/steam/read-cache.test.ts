// The steam adapter's cache of what a flow has already read: an entry answers until its age
// reaches the TTL, and past maxEntries the oldest go (a busy gateway's memory stays bounded).
import { describe, expect, it } from 'vitest';
import { ReadCache } from '../../src/platform/steam/steam-read-cache.js';

describe('ReadCache', () => {
  it('answers an entry until its age reaches the TTL (one ms before: kept; at it: gone)', () => {
    const c = new ReadCache<string>(1000);
    c.set('a', 'x', 10_000);
    expect(c.get('a', 10_999)).toBe('x');
    expect(c.get('a', 11_000)).toBeUndefined();
    expect(c.size).toBe(0);
  });
  it('keeps at most maxEntries, dropping the oldest; a key set again is the newest', () => {
    const c = new ReadCache<number>(60_000, 2);
    c.set('a', 1, 0);
    c.set('b', 2, 1);
    c.set('a', 3, 2); // a is now newer than b
    c.set('c', 4, 3);
    expect(c.size).toBe(2);
    expect(c.get('b', 4)).toBeUndefined();
    expect([c.get('a', 4), c.get('c', 4)]).toEqual([3, 4]);
    c.delete('a');
    expect(c.get('a', 4)).toBeUndefined();
  });
});
