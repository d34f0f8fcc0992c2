// Realistic examples of the document, taken from sandbox runs (a contract test validates each one
// against its schema, so they cannot drift from the wire).
const env = (message: string, data: unknown) => ({ success: true, message, data });

const AT = '2026-11-23T10:15:02.417Z';
const BOT = { bot_name: 'sandbox-bot-1', bot_platform_id: 76561198000000001 };

// ---- deposits ----
export const inventoryRequest = { game: 'csgo', partner: 12345678, token: 'abcdefgh' };
const ak = {
  id: '30012345678001',
  name: 'AK-47 | Redline (Field-Tested)',
  price: 12.34,
  image_url: 'https://gateway.example/static/item-image/csgo/AK-47%20%7C%20Redline%20(Field-Tested).svg',
  exterior: 'Field-Tested',
  rarity: 'Classified',
  rarity_color: 'd32ce6',
};
export const inventoryResponse = env('inventory loaded', { items: [ak], total: 1, sum: 12.34, game: 'csgo', max_items: 50 });

export const createDepositRequest = {
  merchant_tx_id: 'order-1001',
  game: 'csgo',
  partner: 12345678,
  token: 'abcdefgh',
  asset_ids: ['30012345678001'],
  min_prices: { '30012345678001': 12 },
  result_url: 'https://shop.example/hooks/deposits',
};
const depositCore = {
  id: 42,
  merchant_tx_id: 'order-1001',
  status: 'active',
  amount: 12.34,
  ...BOT,
  trade_offer_id: '7310000042',
  trade_offer_expiry_at: '2026-11-23T10:25:02.417Z',
};
export const depositCreatedResponse = env('deposit created', { ...depositCore, fail_reason: null });

export const getPricesRequest = { game: 'csgo', marketHashNames: ['AK-47 | Redline (Field-Tested)', 'AWP | Asiimov (Battle-Scarred)'] };
export const getPricesResponse = env('prices quoted', {
  id: 43,
  total: 2,
  sum: 40.84,
  items: [
    { name: 'AK-47 | Redline (Field-Tested)', price: 12.34, originalPrice: 12.34 },
    { name: 'AWP | Asiimov (Battle-Scarred)', price: 28.5, originalPrice: 28.5 },
  ],
});
export const createDepositByHashNameRequest = {
  id: 43,
  merchant_tx_id: 'order-1002',
  game: 'csgo',
  partner: 12345678,
  token: 'abcdefgh',
  items: [{ asset_id: '30012345678001', name: 'AK-47 | Redline (Field-Tested)', min_price: 12 }],
};
export const depositPreviewRequest = { game: 'csgo', partner: 12345678, token: 'abcdefgh' };
export const depositPreviewResponse = env('preview quoted', { items: [ak], total: 1, sum: 12.34, game: 'csgo', max_items: 50 });
export const depositStatusResponse = env('deposit found', {
  ...depositCore,
  status: 'hold',
  hold_end_date: '2026-11-30T10:16:40.000Z',
  fail_reason: null,
});

// ---- redirect flow ----
export const createIntentRequest = {
  merchant_tx_id: 'order-1003',
  game: 'csgo',
  result_url: 'https://shop.example/hooks/deposits',
  success_url: 'https://shop.example/deposit/done',
  fail_url: 'https://shop.example/deposit/failed',
};
export const createIntentResponse = env('intent created', { id: 44, merchant_tx_id: 'order-1003', url: 'https://gateway.example/deposit/dpt_Yk3s9QmW0aZr2LxE7vNc' });

// ---- purchases ----
export const purchaseRequest = { partner: 12345678, token: 'abcdefgh', game: 'csgo', name: 'AK-47 | Redline (Field-Tested)', merchant_tx_id: 'buy-2001', max_price: 13 };
const purchase = {
  id: 7,
  merchant_tx_id: 'buy-2001',
  status: 'pending',
  platform_id: '76561197972691406',
  amount: 12.96,
  date: AT,
  item: { id: 'L000000000123', name: 'AK-47 | Redline (Field-Tested)', price: 12.96, image_url: ak.image_url },
};
export const purchaseResponse = env('purchase created', purchase);
export const purchaseStatusResponse = env('purchase found', { ...purchase, status: 'hold', trade_offer_id: '7320000007', hold_end_date: '2026-11-30T10:15:40.000Z' });
export const purchaseHistoryResponse = env('purchases listed', { data: [{ ...purchase, status: 'completed', trade_offer_id: '7320000007' }], total: 1 });
export const sandboxPurchaseResponse = env('purchase', { ...purchase, status: 'completed', trade_offer_id: '7320000007' });
export const sandboxDepositResponse = env('deposit', { ...depositCore, status: 'completed', hold_end_date: null, fail_reason: null });

// ---- catalogue ----
const listing = { id: 'L000000000123', name: ak.name, price: 12.96, image_url: ak.image_url, exterior: 'Field-Tested', rarity: 'Classified', rarity_color: 'd32ce6' };
export const cataloguePageResponse = env('catalogue page listed', {
  game: 'csgo',
  total: 5000,
  items: [listing],
  page: 2,
  total_pages: 16,
  count: 1,
  next: 'game=csgo&full=true&page=3',
  previous: 'game=csgo&full=true&page=1',
  last_update_at: AT,
});
export const searchResponse = env('search results listed', { game: 'csgo', total: 1, items: [listing] });
export const eventsResponse = env('catalogue events listed', {
  since: '2026-11-23T10:15:00.000Z',
  next: '2026-11-23T10:15:02.418Z',
  count: 2,
  more: false,
  reset: false,
  events: [
    { type: 'upsert', at: AT, game: 'csgo', id: 'L000000000124', item: { ...listing, id: 'L000000000124', price: 13.1 } },
    { type: 'remove', at: AT, game: 'csgo', id: 'L000000000123' },
  ],
});
// ---- events (beyond the spec) ----
const depositEvent = {
  id: 'evt_812',
  type: 'deposit.completed',
  record_kind: 'deposit',
  record_id: 42,
  merchant_tx_id: 'order-1001',
  created_at: AT,
  data: { status: 'completed', trade_id: 42, trade_date: '2026-11-23T10:05:02.417Z', merchant_tx_id: 'order-1001', platform_id: '76561197972611406', offer_id: '7310000042', amount: 12.34, amount_currency: 'usd' },
  delivery: { state: 'delivered', target_url: 'https://shop.example/hooks/deposits', attempt_count: 1, next_attempt_at: null, last_attempt_at: AT, last_status_code: 200, last_error: null, delivered_at: AT },
};
export const eventListResponse = env('events listed', { events: [depositEvent], next_cursor: 'evt_812' });
export const eventResponse = env('event found', {
  ...depositEvent,
  attempts: [{ attempt: 1, attempted_at: AT, target_url: 'https://shop.example/hooks/deposits', status_code: 200, latency_ms: 41, error: null, response_excerpt: 'ok' }],
});
export const balanceResponse = env('balance retrieved', { total: 1000, hold: 12.96, available: 987.04 });

// ---- hosted page ----
export const hostedInventoryRequest = { partner: 12345678, token: 'abcdefgh', game: 'csgo' };
export const hostedDepositRequest = { asset_ids: ['30012345678001'] };
export const hostedStateResponse = env('intent found', {
  id: 44,
  merchant_tx_id: 'order-1003',
  merchant_name: 'Shop',
  status: 'new',
  game: 'csgo',
  games: ['csgo', 'rust', 'dota2', 'tf2'],
  needs_trade_link: true,
  max_items: 50,
  amount: null,
  bot_name: null,
  trade_offer_id: null,
  trade_offer_expiry_at: null,
  hold_end_date: null,
  fail_reason: null,
  success_url: 'https://shop.example/deposit/done',
  fail_url: 'https://shop.example/deposit/failed',
  server_time: AT,
  expires_at: '2026-11-24T10:15:02.417Z',
  expired: false,
  parent_origins: ['https://shop.example'],
});

// ---- operator ----
const merchant = {
  id: 3,
  name: 'Shop',
  enabled: true,
  api_key_prefix: 'sk_Hq2v9Lm',
  webhook_url: 'https://shop.example/hooks',
  ip_whitelist: ['203.0.113.7'],
  deposit_preview_enabled: true,
  max_items: 50,
  deposit_multiplier: 1,
  purchase_markup: 1.05,
  frame_ancestors: ['https://shop.example'],
  rate_limit_per_minute: null,
  created_at: AT,
  updated_at: AT,
};
const balance = { available: 987.04, hold: 12.96, total: 1000 };
export const createMerchantRequest = { name: 'Shop', webhook_url: 'https://shop.example/hooks', ip_whitelist: ['203.0.113.7'], deposit_preview_enabled: true, purchase_markup: 1.05, frame_ancestors: ['https://shop.example'] };
export const updateMerchantRequest = { enabled: false, max_items: 20, rate_limit_per_minute: 12000 };
export const createdMerchantResponse = env('merchant created', {
  ...merchant,
  api_key: 'sk_Hq2v9LmT0bX4cW8yR1nK6pZs3eJ7uA5dG2fV9hQ0',
  webhook_secret: 'whsec_3q2+7wUd9kFh6Zx0Lr1mYp4sTn8vBc5eJg2aWi7oQuE',
});
export const merchantListResponse = env('merchants listed', [merchant]);
export const merchantResponse = env('merchant found', { ...merchant, balance });
export const merchantUpdatedResponse = env('merchant updated', { ...merchant, enabled: false, max_items: 20, rate_limit_per_minute: 12000 });
export const rotatedKeyResponse = env('API key rotated', { id: 3, api_key: 'sk_N7c0Qe3Rk9Wd2Ym5Tx8Lb1Vh4Ja6Gp0Fs3Zu7Io', api_key_prefix: 'sk_N7c0Qe3' });
export const rotatedSecretResponse = env('webhook secret rotated', { id: 3, webhook_secret: 'whsec_Pz4kR7dW1qYv9Lm3Tn6xBc0sHe2Ju5aGf8oVi1Nr' });
export const topUpRequest = { amount: 250.5, reference: 'bank-2026-11-22' };
export const topUpResponse = env('top-up recorded', { id: 5, amount: 250.5, reference: 'bank-2026-11-22', duplicate: false, balance: { available: 1237.54, hold: 12.96, total: 1250.5 } });
export const topUpDuplicateResponse = env('top-up already recorded', { id: 5, amount: 250.5, reference: 'bank-2026-11-22', duplicate: true, balance: { available: 1237.54, hold: 12.96, total: 1250.5 } });
export const withdrawalRequest = { amount: 100, reference: 'payout-2026-11' };
const withdrawal = { id: 2, merchant_id: 3, amount: 100, status: 'pending', reference: 'payout-2026-11', created_at: AT, updated_at: AT };
export const withdrawalResponse = env('withdrawal created', withdrawal);
export const withdrawalListResponse = env('withdrawals listed', [withdrawal]);
export const withdrawalDone = (status: string) => env(`withdrawal ${status}`, { ...withdrawal, status });
export const ledgerResponse = env('ledger entries listed', [
  { id: 19, key: 'purchase:7:reserve', kind: 'purchase_reserve', available_delta: -12.96, hold_delta: 12.96, available_after: 987.04, hold_after: 12.96, ref_type: 'purchase', ref_id: 7, created_at: AT },
]);
export const ledgerVerifyResponse = env('ledger balances', { ok: true, checked: 3, mismatches: [] });
const delivery = {
  id: 12,
  webhook_id: 'evt_12',
  merchant_id: 3,
  kind: 'deposit',
  record_id: 42,
  status: 'completed',
  state: 'delivered',
  target_url: 'https://shop.example/hooks/deposits',
  attempt_count: 1,
  next_attempt_at: null,
  last_attempt_at: AT,
  last_status_code: 200,
  last_error: null,
  delivered_at: AT,
  created_at: AT,
  payload: { status: 'completed', trade_id: 42, trade_date: AT, merchant_tx_id: 'order-1001', platform_id: '76561197972691406', offer_id: '7310000042', amount: 12.34, amount_currency: 'usd' },
  attempts: [{ attempt: 1, attempted_at: AT, target_url: 'https://shop.example/hooks/deposits', status_code: 200, latency_ms: 84, error: null, response_excerpt: 'ok' }],
};
export const deliveriesResponse = env('webhook deliveries listed', [delivery]);
export const redeliverResponse = env('redelivery queued', { ...delivery, state: 'pending', next_attempt_at: AT });
export const createBotRequest = {
  account_name: 'tradebot_01',
  password: 'correct horse battery staple',
  shared_secret: 'c2hhcmVkLXNlY3JldC0yMGJ5dGU=',
  identity_secret: 'aWRlbnRpdHktc2VjcmV0LTIwYnk=',
  platform_id: '76561198000000101',
  games: ['csgo', 'rust'],
  inventory_capacity: 1000,
};
export const updateBotRequest = { enabled: true, inventory_capacity: 900 };
export const webSessionRequest = { web_cookies: ['steamLoginSecure=76561198000000001%7C%7CeyJhbGciOi…', 'sessionid=2c3a5f0e9b1d4e7a8c6f0b1d'] };
const bot = {
  id: 4,
  name: 'tradebot_01',
  account_name: 'tradebot_01',
  platform_id: '76561198000000101',
  status: 'active',
  enabled: true,
  trade_state: 'ok',
  trade_state_reason: null,
  games: ['csgo', 'rust'],
  inventory_capacity: 1000,
  signed_in: false,
  last_authenticated_at: null,
  session_error: null,
  sign_in_retry_at: null,
  proxy: 'set',
  rotation: 'out',
  rotation_reason: 'no live session (not driven by any instance yet)',
  lease_owner: null,
  lease_expires_at: null,
  trade_protection_acknowledged_at: null,
  last_checked_at: null,
  created_at: AT,
  removed_at: null,
};
export const botAddedResponse = env('bot added', bot);
export const botListResponse = env('bots listed', [bot]);
export const botResponse = env('bot found', bot);
export const botUpdatedResponse = env('bot updated', { ...bot, inventory_capacity: 900 });
export const webSessionStoredResponse = env('web session stored', bot);
export const botDisabledResponse = env('bot disabled', { ...bot, status: 'disabled', enabled: false });
export const botRemovedResponse = env('bot removed', { ...bot, status: 'removed', enabled: false, removed_at: AT });
export const botCheckResponse = env('bot checked', {
  bot: { ...bot, last_checked_at: AT, trade_protection_acknowledged_at: AT },
  check: {
    signed_in: true,
    platform_id: '76561198000000101',
    can_trade: true,
    trade_protection_acknowledged: true,
    confirmations_reachable: true,
    inventory: { csgo: 214, rust: 37 },
    listed_but_missing: [],
    problems: [],
  },
});

// ---- webhooks ----
export const depositWebhook = {
  sign: 'q1c1cJx0m3mD5V7Zl0m7y4Jb9kq8v2sU1qf3YpQ0m5E=',
  status: 'hold',
  trade_id: 42,
  trade_date: AT,
  merchant_tx_id: 'order-1001',
  platform_id: '76561197972691406',
  offer_id: '7310000042',
  amount: 12.34,
  amount_currency: 'usd',
  hold_end_date: '2026-11-30T10:16:40.000Z',
};
export const purchaseWebhook = {
  sign: 'H8v2Kd0rX4m1Qz7Lp3Nc6Ty9Ws5Fb2Jg8Ue1Ao4Ri0=',
  status: 'failed',
  purchase_id: 7,
  trade_date: AT,
  merchant_tx_id: 'buy-2001',
  asset_id: 'L000000000123',
  amount: 12.96,
  amount_currency: 'usd',
  fail_reason: 'trade_url_error',
};

export const botSyncResponse = env('bots synced', {
  bots: [{ bot_id: 1, game: 'csgo', items: 12, listed: 9, delisted: 1, skipped: { protected: 2, in_offer: 0, deposit: 1, listed: 0, unpriced: 0, filtered: 0 } }],
  listed: 9,
  delisted: 1,
  errors: 0,
});

export const reconcileResponse = env('reconciliation report', {
  run_id: 12,
  started_at: AT,
  finished_at: AT,
  since: '2026-11-15T10:15:02.417Z',
  bots_read: 2,
  read_errors: [],
  total: 1,
  discrepancies: [{
    n: 1, kind: 'reversed_trade_still_credited', bot_id: 1, record_kind: 'deposit', record_id: 4211, merchant_id: 3, trade_id: '5000000000000000007', listing_id: null, asset_id: null,
    detail: 'trade 5000000000000000007 was reversed; deposit 4211 is completed',
    action: 'The deposit trade was reversed on the platform (the items went back to the user) but the merchant is still credited. Debit the merchant (a withdrawal referencing the deposit) and delist what the deposit listed.',
  }],
});
