// Human sentences for the platform's refusals (spec 7.3), fail reasons (3.3) and statuses (3.1).
// Pure (no DOM).

export const CODE_SENTENCES = {
  trade_link_invalid: 'This trade link is incorrect or has expired. Copy your current trade link from Steam and try again.',
  trade_link_revoked: 'This trade link was reset in Steam and no longer works. Copy your new trade link and try again.',
  trade_banned: 'Your Steam account has a trade ban, so it cannot trade items right now.',
  profile_private: 'Your Steam profile is private. Make your profile public in Steam’s privacy settings, then try again.',
  limited_account: 'Your Steam account is limited and cannot trade yet. Steam lifts the limit once the account has spent at least $5.',
  hold: 'Your Steam account has a temporary trade hold. Trading works again once Steam lifts it (enable the Steam Guard Mobile Authenticator to avoid holds).',
  permissions: 'Your inventory for this game is private. Set “Inventory” to Public in Steam’s privacy settings, then try again.',
  hold_and_permissions: 'Your Steam account has a trade hold and your inventory is private. Fix both in Steam, then try again.',
  inventory_reload: 'Prices have changed since your inventory was loaded. We reloaded it; please choose your items again.',
  too_many_items: 'Too many items selected for one deposit.',
  denied: 'This deposit was already submitted.',
  exist: 'This deposit was already submitted.',
  item_specified_price_not_found: 'The price of an item dropped. Please choose your items again.',
  item_not_available: 'One of the items is no longer in your inventory. Please choose your items again.',
  price_changed: 'The price of an item changed. Please choose your items again.',
  link_expired: 'This deposit link has expired. Go back to the site you came from and start the deposit again.',
};

export const FAIL_SENTENCES = {
  service_unavailable: 'Steam is not responding right now, so no trade offer was sent. Please try again in a few minutes.',
  provider_unavailable: 'Steam is not responding right now, so no trade offer was sent. Please try again in a few minutes.',
  canceled_by_user: 'You declined the trade offer, so nothing was deposited.',
  canceled_by_gateway: 'The trade offer expired before it was accepted, so nothing was deposited.',
  timeout_error: 'The trade offer expired before it was accepted, so nothing was deposited.',
  inventory_reload: 'Prices changed before the deposit was sent. Please start again.',
  price_changed: 'Prices changed before the deposit was sent. Please start again.',
  item_not_available: 'One of the items is no longer in your inventory, so nothing was deposited.',
  item_specified_price_not_found: 'The price of an item dropped below the accepted minimum, so nothing was deposited.',
  insufficient_balance: 'The deposit could not be processed. Please contact the merchant.',
  user_reverted: 'The trade was reversed in Steam during the trade hold, so nothing was credited.',
  gateway_reverted: 'The trade was reversed during the trade hold, so nothing was credited.',
};

export const STATUS_LABELS = {
  new: 'Waiting for your items',
  pending: 'Sending the trade offer…',
  active: 'Trade offer sent',
  hold: 'Received — on trade hold',
  completed: 'Completed',
  failed: 'Failed',
  canceled: 'Canceled',
  reverted: 'Reversed',
};

export const TERMINAL = new Set(['completed', 'failed', 'canceled', 'reverted']);

/** Statuses the parent window hears about (spec 6.3). A reversed trade is a failed deposit to it. */
export function parentStatus(status) {
  if (status === 'reverted') return 'failed';
  return ['new', 'active', 'hold', 'completed', 'canceled', 'failed'].includes(status) ? status : null;
}

/** A sentence for an error envelope {success:false, message, data?} (or a network failure). */
export function describeError(body, httpStatus) {
  if (!body || typeof body !== 'object') {
    return httpStatus ? `Something went wrong (HTTP ${httpStatus}). Please try again.` : 'Cannot reach the server. Check your connection and try again.';
  }
  const entries = Array.isArray(body.data) ? body.data : [];
  const coded = entries.find((e) => e && typeof e.code === 'string' && CODE_SENTENCES[e.code]);
  if (coded) return CODE_SENTENCES[coded.code];
  if (body.data && typeof body.data === 'object' && FAIL_SENTENCES[body.data.fail_reason]) return FAIL_SENTENCES[body.data.fail_reason];
  const msg = String(body.message ?? '');
  if (/maximum of \d+ items/.test(msg)) return `Too many items: ${msg.replace(/^deposit exceeds/, 'a deposit can have at most').replace(/ per deposit$/, '')}.`;
  if (httpStatus === 404) return 'This deposit link is not valid.';
  if (httpStatus === 503 || httpStatus === 502 || httpStatus === 408 || msg === 'integration service error') return FAIL_SENTENCES.service_unavailable.replace(', so no trade offer was sent', '');
  if (httpStatus === 403) return 'Deposits are not available for this merchant right now.';
  if (httpStatus >= 500) return 'Something went wrong on our side. Please try again in a moment.';
  if (msg === 'validation error' && entries[0]?.message) return `Please check your input: ${entries[0].message}.`;
  return msg ? `${msg[0].toUpperCase()}${msg.slice(1)}.` : 'Something went wrong. Please try again.';
}

export function failSentence(reason) {
  return FAIL_SENTENCES[reason] ?? 'The deposit did not go through. Nothing was taken from your inventory.';
}
