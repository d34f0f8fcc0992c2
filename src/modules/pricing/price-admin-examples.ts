// Examples of the operator price API for the OpenAPI document (src/assembly/openapi-operations.ts).
const AT = '2026-11-23T10:15:02.417Z';
const env = (message: string, data: unknown) => ({ success: true, message, data });
const NAME = 'AK-47 | Redline (Field-Tested)';

const basis = {
  game: 'csgo',
  market_hash_name: NAME,
  basis_id: 81234,
  computed_at: AT,
  reference: 30.95,
  deposit_price: 30.95,
  sale_price: 30.95,
  flags: ['outlier'],
  pending_jump: null,
  readings: [
    { source: 'book', role: 'market', price: 30.95, as_of: AT, status: 'used' },
    { source: 'skinport', role: 'market', price: 309.5, as_of: AT, liquidity: 42, status: 'outlier' },
    { source: 'csfloat', role: 'market', price: 31.2, as_of: AT, liquidity: 17, status: 'used' },
    { source: 'steam', role: 'guard', price: 33.1, as_of: AT, liquidity: 1234, status: 'guard' },
  ],
};
const override = { game: 'csgo', market_hash_name: NAME, action: 'pin', price: 29.5, reason: 'manipulated listings', set_by: 'admin-token', set_at: AT };

export const priceExamples = {
  flaggedResponse: env('flagged prices listed', [basis]),
  basisResponse: env('price basis found', basis),
  sourcesResponse: env('price sources listed', [
    { id: 'book', failures: 0, last_success_at: AT, last_error: null, next_poll_at: AT },
    { id: 'skinport', failures: 2, last_success_at: AT, last_error: 'https://api.skinport.com/v1/items: HTTP 429 (rate limited)', next_poll_at: AT },
  ]),
  refreshResponse: env('price refresh state', { running: true, polling: ['skinport'], bases_pending: 12000 }),
  refreshStartedResponse: env('price refresh started', { running: true, polling: ['book', 'skinport', 'csfloat'], bases_pending: 0 }),
  overridesResponse: env('price overrides listed', [override]),
  overrideRequest: { game: 'csgo', market_hash_name: NAME, action: 'pin', price: 29.5, reason: 'manipulated listings' },
  overrideResponse: env('price override stored', override),
  removedResponse: env('price override removed', null),
  confirmRequest: { game: 'csgo', market_hash_name: NAME },
  confirmResponse: env('price jump confirmed', { ...basis, flags: [], readings: basis.readings.map((r) => ({ ...r, status: r.role === 'guard' ? 'guard' : 'used' })) }),
};
