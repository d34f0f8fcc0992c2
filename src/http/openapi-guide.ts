// The prose of the document: the front page (info.description) and the tag pages shown by /docs.
// The tags follow the sections of the merchant API specification.

export const INTRO = `
B2B gateway for in-game items: take items from your users (**deposits**, credited to your balance)
and buy catalogue items for them (**purchases**, reserved from your balance). Every state change is
reported by a signed **webhook**.

- Merchant API: \`/api/v1/merchant/...\` — JSON over HTTPS, header \`X-Api-Key\`.
- Download this document: [/openapi.json](/openapi.json) (OpenAPI 3.1; generate a client with
  \`npx openapi-typescript http://HOST/openapi.json -o api.d.ts\` and \`openapi-fetch\`).
- Money: numbers in **USD** with at most three decimals, exact (1/1000 USD internally).
- Times: ISO 8601 in UTC (\`2026-11-23T10:15:02.417Z\`).

## Authentication
Send the merchant API key in \`X-Api-Key\` on every request, from your backend only (never from a
browser or app). \`Authorization: Bearer\` is not used by the merchant API.

| answer | when |
|---|---|
| 401 \`missing authorization header\` | no \`X-Api-Key\` |
| 401 \`invalid API key\` | unknown key, or a key replaced by a rotation (the old key fails at once, on every instance) |
| 403 \`merchant account is disabled\` | the account is switched off |
| 403 \`IP not whitelisted: <ip>\` | the account has an IP whitelist (exact addresses, no CIDR) and the caller is not on it |

The operator API (\`/api/admin\`) takes \`Authorization: Bearer <ADMIN_TOKEN>\` instead.

## Errors
Every answer is the envelope \`{success, message, data}\`. Errors have \`success: false\`, a
\`message\`, and for validation errors \`data\`: a list of \`{field, code, message}\`:

\`\`\`json
{"success": false, "message": "validation error",
 "data": [{"field": "CreateDepositRequest.token", "code": "len", "message": "token must NOT have fewer than 8 characters"}]}
\`\`\`

Standard codes: \`required\`, \`len\`, \`oneof\`, \`min\`, \`max\`, \`numeric\`, \`url\`, \`format\`, \`type\`.
Domain codes (stable, for programs): \`exist\` (merchant_tx_id), \`inventory_reload\`,
\`trade_link_revoked\` (token), \`trade_link_invalid\`, \`trade_banned\`, \`profile_private\`,
\`limited_account\`, \`hold\`, \`hold_and_permissions\` (partner), \`permissions\` (game), \`denied\`
(status), \`too_many_items\` (items).

| status | meaning | retry? |
|---|---|---|
| 400 | \`validation error\`, \`invalid request body\` (malformed JSON), \`invalid game code\`, \`page must be 1 or greater\` | no: fix the request |
| 401 / 403 | authentication, see above; 403 also \`deposit preview is not enabled for this merchant\` | no |
| 404 | \`not found error\`: missing, or another merchant's record | no |
| 409 | \`already exist error\` (duplicate merchant_tx_id) or \`invalid transition\` | no |
| 413 / 415 | body above the size limit / not \`application/json\` | no |
| 408 / 414 / 431 | the request arrived too slowly / URI or headers too large: answered before any route, the connection is then closed | 408: yes |
| 429 | \`too many requests\`: over the rate limit (see Rate limits); nothing was done | yes, after \`Retry-After\` (seconds) |
| 500 | \`internal error\` or \`integration service error\` (the platform did not answer) | yes, with backoff |
| 503 | temporary (catalogue being rebuilt, too many downloads, the hosted page's server busy): honour \`Retry-After\` (seconds) | yes |

A POST whose body is optional (sandbox helpers, key rotation) may be sent empty even with
\`Content-Type: application/json\`.

Amounts are JSON numbers in USD with at most 3 decimals, and at most 8796093022208 USD (2^43): every
amount up to it is printed exactly as a JSON number, which a double cannot do past it. A larger
amount, or a balance (available + hold) that a movement would take past it, is refused: 400, code
\`max\`, the message naming the limit.

Identifiers and names refuse characters that are invisible or move text around when shown: Unicode
categories Cc (controls: tab, CR, LF…) and Cf (zero-width and bidirectional controls, U+FEFF…), and
U+2028/U+2029. \`merchant_tx_id\` also refuses whitespace at either end; letters of any script,
spaces inside, symbols and emoji are kept. The refusal is a 400 with code \`format\`, the message
naming the rule and the character: \`merchant_tx_id must not contain control or invisible formatting
characters (Unicode Cc, Cf, U+2028, U+2029): U+0009 at character 3\`.

## Rate limits
Each API key may send a number of requests per minute, set by the gateway's operator (6000 by
default, or your account's own limit); the hosted page's API is limited per client address. The limit is a bucket: it holds a
minute's worth of requests, so a burst of up to the limit goes through at once, and it refills
evenly over the minute. Every answer of the merchant API carries the headers:

| header | meaning |
|---|---|
| \`RateLimit-Limit\` | requests per minute (and the largest burst) |
| \`RateLimit-Remaining\` | requests you may send now |
| \`RateLimit-Reset\` | seconds until the whole limit is available again |

Over the limit the answer is **429** \`too many requests\` in the usual envelope, with
\`Retry-After\` (whole seconds until the next request is allowed) and the headers above. A refused
request did nothing, so sending it again after \`Retry-After\` is always safe; the SDKs do that on
their own (\`maxRetries\`). Keep polling modest: prefer the webhooks and the events API, poll a
deposit at most once a second, and re-read catalogue pages with \`If-None-Match\` (a 304 counts
like any answer).

## Idempotency
- **Deposits**: \`merchant_tx_id\` is unique per merchant. A second create-intent, create-deposit or
  create-deposit-by-hash-name with the same id answers **409** \`already exist error\`
  (\`data[0].code = exist\`) and creates nothing: after a timeout, look the deposit up with
  \`GET /deposit/status?merchant_tx_id=…\` instead of creating it again.
- **Purchases**: \`POST /purchase\` with a \`merchant_tx_id\` already used answers the stored purchase
  (HTTP 200, message \`purchase already exists\`): retrying a purchase is always safe and never buys
  twice. Without \`merchant_tx_id\` every call is a new purchase.
- **Webhooks** are delivered at least once: deduplicate on the \`webhook-id\` header (stable across
  retries), or on \`merchant_tx_id\` + \`status\`.
- Operator top-ups are idempotent on \`reference\`.

## Webhooks
See the **Webhooks** section of this document for both bodies. Each status change of a deposit (to
hold, completed, failed, canceled, reverted) or purchase (to active, hold, completed, failed,
canceled, reverted) is POSTed to the deposit's \`result_url\`, else the merchant's \`webhook_url\`.
Answer any 2xx quickly; anything else is retried (0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; a
\`Retry-After\` on 429/503 is honoured); events of one record arrive in order.

Two signatures, both with your webhook secret (\`whsec_…\`):

1. **\`sign\`** in the body: \`base64(sha256(String(trade_id or purchase_id) + secret))\`.
2. **Standard Webhooks** headers: \`webhook-id\`, \`webhook-timestamp\` (Unix seconds) and
   \`webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>\`, keyed with the
   32 bytes after \`whsec_\` (standard base64; the official Standard Webhooks libraries take the secret as it is). It covers the whole body; reject timestamps older than 5 minutes.

\`\`\`js
import crypto from 'node:crypto';
const SECRET = process.env.WEBHOOK_SECRET; // whsec_…
export function verifySign(body) {
  const id = body.trade_id ?? body.purchase_id;
  const expected = crypto.createHash('sha256').update(String(id) + SECRET, 'utf8').digest('base64');
  return typeof body.sign === 'string' && body.sign.length === expected.length &&
    crypto.timingSafeEqual(Buffer.from(body.sign), Buffer.from(expected));
}
export function verifyStandard(headers, rawBody, toleranceSec = 300) {
  const id = headers['webhook-id'], ts = headers['webhook-timestamp'];
  if (!id || !ts || Math.abs(Date.now() / 1000 - Number(ts)) > toleranceSec) return false;
  const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64url');
  const expected = crypto.createHmac('sha256', key).update(\`\${id}.\${ts}.\${rawBody}\`, 'utf8').digest();
  return String(headers['webhook-signature'] ?? '').split(' ').some((part) => {
    const [version, sig] = part.split(',');
    const got = Buffer.from(sig ?? '', 'base64');
    return version === 'v1' && got.length === expected.length && crypto.timingSafeEqual(got, expected);
  });
}
\`\`\`

## Sandbox
With \`PLATFORM=sandbox\` (the default) the trading platform is simulated, failures included. Any
partner ≥ 8 with an 8-character token is a user with a deterministic inventory. Offers expire and
holds end on their own, or at once through the helpers of the **Sandbox** section:
\`POST /api/v1/merchant/sandbox/{deposit|purchase}/{id}/{action}\` with action \`accept\` (body
\`{"hold": false}\` optional), \`decline\`, \`expire\`, \`cancel\`, \`release\`, \`revert\` (body
\`{"by": "user"|"gateway"}\` optional).

Magic partners:

| partner | result |
|---|---|
| 90000001 | \`trade_link_invalid\` |
| 90000002 | \`trade_link_revoked\` |
| 90000003 | \`trade_banned\` |
| 90000004 | \`profile_private\` |
| 90000005 | \`limited_account\` |
| 90000006 | \`hold\` |
| 90000007 | \`permissions\` |
| 90000008 | \`hold_and_permissions\` |
| 90000009 | an empty inventory |
| 90000010 | the platform does not answer: deposit \`failed\`/\`service_unavailable\`, purchase \`failed\`/\`provider_unavailable\` |
| 90000011 | trade link revoked after the purchase was created: purchase \`failed\`/\`trade_url_error\` |
| 90000012 | the platform never answers a purchase offer: \`failed\`/\`timeout_error\` |
| 90000013 | the platform answers a deposit offer too late: \`failed\`/\`service_unavailable\`, then the offer is canceled |
`.trim();

export const TAGS: { name: string; description: string }[] = [
  { name: 'Redirect flow', description: 'Spec 2.2, 4.1: a hosted deposit page for your user; you redirect or embed it (iframe) and get the webhooks.' },
  { name: 'Deposits', description: "Spec 2.1, 2.3, 4.2–4.7: the user's priced inventory, then a deposit of chosen assets; the trade offer goes out at once. Statuses: new → active → hold → completed, or failed / canceled / reverted (spec 3.1)." },
  { name: 'Deposits by hash name', description: 'Spec 2.4, 4.4–4.5: quote items by market hash name (a draft valid 5 minutes), then commit it with the user\'s asset IDs and per-item price floors.' },
  { name: 'Purchases', description: 'Spec 2.5, 4.8–4.10: buy a catalogue item for a user (reserved from your balance, refunded when it fails). Statuses: new → pending → active → hold → completed, or failed / canceled / reverted (spec 3.2).' },
  { name: 'Catalogue', description: 'Spec 2.6, 4.11–4.12: what can be bought. 16 stable pages with ETags (If-None-Match → 304), the whole catalogue streamed, search by names, and a change feed (/purchase/events) to keep a copy current.' },
  { name: 'Balance', description: 'Spec 2.7, 4.13: available, hold and total in USD.' },
  { name: 'Events', description: 'Beyond the specification: every webhook event of yours (deposit and purchase status changes, dashboard test events), newest first, whatever became of its delivery, with its attempts. For catching up after missed webhooks.' },
  { name: 'Sandbox', description: 'Test helpers (PLATFORM=sandbox only): play the user\'s and the platform\'s side of an offer. See "Sandbox" above for the magic partners.' },
  { name: 'Hosted page', description: 'The JSON API of the hosted deposit page (/deposit/{token}); authenticated by the page token alone. You do not call these.' },
  { name: 'Operator: merchants', description: 'Operator API (Bearer ADMIN_TOKEN): merchant accounts, keys and secrets.' },
  { name: 'Operator: balance and ledger', description: 'Operator API: top-ups, withdrawals, the immutable ledger and its reconciliation.' },
  { name: 'Operator: webhooks', description: 'Operator API: the delivery log of every webhook attempt, and redelivery.' },
  { name: 'Operator: prices', description: 'Operator API: what priced an item (each source\'s reading and what the reference-price rules made of it), flagged items, the override list (pin or block, audited) and held price jumps.' },
  { name: 'Operator: bots', description: 'Operator API: the trading bots of PLATFORM=steam (secrets stored encrypted, never shown), their state and lease, and a sign-in check.' },
  { name: 'Operator: dashboard accounts', description: 'Operator API: invitations (one-time links) for merchant dashboard users and console operators, users, the audit log.' },
];

/** Redoc-style groups (x-tagGroups); Swagger UI shows the tags in this order. */
export const TAG_GROUPS = [
  { name: 'Merchant API', tags: ['Redirect flow', 'Deposits', 'Deposits by hash name', 'Purchases', 'Catalogue', 'Balance', 'Events', 'Sandbox'] },
  { name: 'Hosted page', tags: ['Hosted page'] },
  { name: 'Operator API', tags: ['Operator: merchants', 'Operator: balance and ledger', 'Operator: webhooks', 'Operator: bots', 'Operator: dashboard accounts', 'Operator: prices'] },
];

/** What the specification says of each merchant operation (shown above the route's own notes). */
export const DESCRIPTIONS: Record<string, string> = {
  createIntent:
    'Creates a deposit intent for the redirect flow and answers the hosted page `url`. If game, partner and token are omitted, the user supplies them on the hosted page. ' +
    'The page takes a deposit for `INTENT_TTL_SECONDS` (default one day); after that it says the link has expired (an intent already in a deposit follows that deposit). ' +
    '`result_url` overrides the merchant webhook URL for this deposit; `success_url` / `fail_url` are where the page sends the user. ' +
    'The three custom currency fields go together (`custom_currency` 1–4 characters, multiplier 0.5–2.0, rate at least 0.1). ' +
    'A duplicate `merchant_tx_id` is 409 `already exist error`; the trade link codes of the Errors section apply.',
  getInventory:
    "The user's inventory with real-time prices, and `max_items` (the per-deposit item limit). Starts a 5-minute pricing snapshot: create-deposit takes its asset IDs and prices from it " +
    '(after 5 minutes: 400 with code `inventory_reload`). Recommended: at most one call per user per 5 seconds. The trade link codes of the Errors section apply.',
  createDeposit:
    'Creates a deposit of `asset_ids` from the inventory snapshot and sends the trade offer. Answers `status` `active` (offer sent) or `failed` (with `fail_reason`), both HTTP 200. ' +
    'The user\'s inventory is read again first: an asset no longer held or not tradable is 400 `item_not_available`, one priced for another phase 400 `price_changed`; the deposit is stored failed with that reason. ' +
    '`min_prices` (asset ID → minimum USD price) refuses the deposit when a price fell below its floor. `from_preview` credits preview prices (merchants with deposit-preview only). ' +
    'More items than `max_items`: 400 `too_many_items`. Duplicate `merchant_tx_id`: 409. Custom currency data is read later from deposit status (hold or completed).',
  getPrices:
    'Quotes items by market hash name (1–2000 names). Unless `no_deposit_intent` is true, a draft trade (status new) is created and its `id` answered: the quote is valid for 5 minutes, ' +
    'commit it with create-deposit-by-hash-name. When nothing can be priced, the answer has total 0, sum 0, items null and no id.',
  createDepositByHashName:
    'Commits a get-prices draft, in order: the trade link is checked; the draft must be yours (else 404) and in status new (else 400 code `denied`); `merchant_tx_id` is stored ' +
    '(duplicate: 409); a quote older than 5 minutes is 400 code `inventory_reload`; an item whose current price is below its `min_price` is 400 `item_specified_price_not_found`; ' +
    'every asset must be in the user\'s inventory now, tradable and the item named (else 400 `item_not_available`; a phased item quoted by its phase, `<name> - <phase>`, else 400 `price_changed`), the trade stored failed; ' +
    'then the offer is sent with a 10-second timeout. Failures after that answer HTTP 200 with status `failed` (`service_unavailable` on a timeout). More items than `max_items`: 400, no trade is created.',
  previewDeposit:
    'Prices currently paid for a list of items (`items`, up to 1000; answered with id, name, price and phase only) or for the user inventory (`partner` + `token`; full item cards). ' +
    'No record, no reservation, no pricing snapshot; prices refresh about every 10 minutes and the deposit settles the final amount. Enabled per merchant: 403 until then.',
  getDepositStatus:
    'A deposit by `id` and/or `merchant_tx_id` (at least one, else 400). `success_url` / `fail_url` only when set, `hold_end_date` when hold, custom currency fields when hold or completed. ' +
    '404 when no deposit of yours matches. Poll at most once a second per deposit; prefer the webhooks.',
  createPurchase:
    'Buys a catalogue item for the user: by `name` (the cheapest live listing) or by `asset_id` (a listing ID from purchase/available), at most `max_price` USD. ' +
    'The amount is reserved from your available balance and the offer is sent; the answer has status `pending` (or `failed` with a creation `fail_reason`). ' +
    'Idempotent on `merchant_tx_id`: a repeated id answers the stored purchase with HTTP 200 (`purchase already exists`) and creates nothing. Trade link problems are 400 with the codes of the Errors section.',
  getPurchaseStatus: 'A purchase by `id` and/or `merchant_tx_id` (at least one, else 400); 404 when nothing of yours matches.',
  listPurchases:
    'Purchase history with `total` (the number of matches). Filters: `status`, `date_range` (1, 7, 30, 90 or 365 days back), `search` (1–100 characters: merchant_tx_id or item name); ' +
    '`sort` by id, merchant_tx_id, status, amount or created_at (`-` prefix: descending); `limit` 1–500 (default 50), `offset`.',
  getCatalogue:
    'The catalogue of a game: grouped by name (default) or one entry per listing (`full=true`, with `extended` fields on request). With `page` (1–16): one of 16 fixed slices keyed by listing ID; ' +
    'a walk over pages 1–16 never skips or repeats a listing even while the catalogue changes; a page past the last is empty; grouped answers are page 1 of 1. ' +
    'Each page has an ETag: `If-None-Match` with the current one answers 304 without a body. While the catalogue is rebuilt a page answers 503 with `Retry-After`. ' +
    'Prices are point-in-time; listings are re-priced when bought.',
  searchCatalogue: 'Live listings with the given names (repeat `names`, at most 50), in the full format of purchase/available; extended fields with `extended=true`.',
  getCatalogueEvents:
    'Beyond the specification: the catalogue change feed, to keep a copy current after a full download. Pass a page `last_update_at` (or the `next` of the previous answer) as `since`; ' +
    'events come oldest first; `more` means ask again at once; `reset` means the cursor is older than the kept history (reload the catalogue, continue from `next`).',
  listEvents:
    'Beyond the specification: your webhook events, newest first (the `webhook-id` header of a delivery is the event `id`). Filter by `type` (`deposit.completed`, or all of a kind: `deposit`, `purchase`, `test`), ' +
    'by record (`deposit_id` or `purchase_id`) and by creation time (`created_from` inclusive, `created_to` exclusive). A page has at most `limit` events; pass `next_cursor` as `cursor` for the next, older page ' +
    '(null: none left). `data` is the body that was or will be sent, without `sign`; `delivery` tells what became of it. Events are written only when a target was set (the deposit `result_url` or your webhook URL); ' +
    'delivered ones are kept `WEBHOOK_RETENTION_DAYS` (30) days after delivery, the others are kept.',
  getEvent: "Beyond the specification: one of your events by id (`evt_812` or `812`), with every delivery attempt: time, your answer's status and first KiB, latency, error. Another merchant's event is 404.",
  getBalance: 'Your balance in USD: `available` (spendable), `hold` (reserved by purchases in flight) and `total`. The account is identified by the key.',
};
