import { describe, expect, it } from 'vitest';
import { postMessageOrigins } from '../../src/modules/hosted-page/hosted-service.js';

describe('where the hosted page posts its status (spec 6.3)', () => {
  it('any parent when the merchant configured no frame_ancestors', () => {
    expect(postMessageOrigins([])).toEqual([]);
    expect(postMessageOrigins(null)).toEqual([]);
  });
  it("only the merchant's exact origins when all entries are exact", () => {
    expect(postMessageOrigins(['https://Shop.example', 'http://127.0.0.1:8080'])).toEqual(['https://shop.example', 'http://127.0.0.1:8080']);
  });
  it('any parent when an entry is a wildcard the browser cannot target', () => {
    expect(postMessageOrigins(['https://shop.example', 'https://*.shop.example'])).toEqual([]);
  });
});
