// The guides of the docs site. Authentication, errors, idempotency and the sandbox are the
// document's own front-page sections (openapi-guide.ts INTRO): one text, shown in both places.
import { INTRO } from '../../http/openapi-guide.js';
import { sections } from './markdown.js';

export interface Guide {
  slug: string;
  title: string;
  summary: string;
  body: string;
}

const intro = sections(INTRO);
/** The webhooks section of the document without its JavaScript sample (the guide has one per language). */
const webhookPrelude = intro.Webhooks!.split('```')[0]!.replace('See the **Webhooks** section of this document for both bodies. ', '').trim();

const QUICK_START = `
Five minutes from nothing to a completed sandbox deposit, with \`curl\` only.

1. **Start the gateway** (Node 20): \`npm install && npm start\`. It listens on \`http://127.0.0.1:8080\`
   with the sandbox platform and an embedded PostgreSQL. The first start creates a demo merchant
   with 1000 USD and prints its **API key** (\`sk_…\`), its **webhook secret** (\`whsec_…\`) and the
   operator token.
2. **Keep them in your shell:**

\`\`\`sh
export GW=http://127.0.0.1:8080/api/v1/merchant
export KEY=sk_...            # the API key printed at start
curl -s $GW/balance -H "X-Api-Key: $KEY"
\`\`\`

3. **Read a user's inventory.** In the sandbox any partner ≥ 8 with an 8-character token is a user:

\`\`\`sh
curl -s $GW/inventory -H "X-Api-Key: $KEY" -H 'content-type: application/json' \\
     -d '{"game":"csgo","partner":12345678,"token":"abcdefgh"}'
\`\`\`

4. **Create a deposit** of one of the \`items[].id\` it answered (the trade offer goes out at once; status \`active\`):

\`\`\`sh
curl -s $GW/create-deposit -H "X-Api-Key: $KEY" -H 'content-type: application/json' \\
     -d '{"merchant_tx_id":"my-first-deposit","game":"csgo","partner":12345678,"token":"abcdefgh","asset_ids":["<an items[].id>"]}'
\`\`\`

5. **Play the user: accept the offer** (no trade hold), then read the deposit — \`completed\`, and your balance grew:

\`\`\`sh
curl -s -X POST $GW/sandbox/deposit/<id>/accept -H "X-Api-Key: $KEY" -H 'content-type: application/json' -d '{"hold":false}'
curl -s "$GW/deposit/status?merchant_tx_id=my-first-deposit" -H "X-Api-Key: $KEY"
curl -s $GW/balance -H "X-Api-Key: $KEY"
\`\`\`

6. **See the webhook.** Set your webhook URL in the dashboard (\`/dashboard\`, *Webhooks*), or read
   what was (or would be) sent with the events API: \`curl -s $GW/events -H "X-Api-Key: $KEY"\`.

Next: [Webhooks](/docs/guides/webhooks) (verify both signatures), [Sandbox](/docs/guides/sandbox)
(magic partners for every error), the [SDKs](/docs/guides/sdks), and the [API reference](/docs/reference).
`;

const WEBHOOKS = `
${webhookPrelude}

Missed some? \`GET /api/v1/merchant/events\` lists your events newest first (filters \`type\`,
\`deposit_id\`, \`purchase_id\`, \`created_from\`, \`created_to\`; cursor \`next_cursor\`), and
\`GET /api/v1/merchant/events/{id}\` shows one with every delivery attempt.

## TypeScript

With the SDK (\`sdk/typescript\`), give it the raw body exactly as received:

\`\`\`ts
import { verifyWebhook } from '@skin-gateway/sdk';

app.post('/hooks/gateway', express.raw({ type: 'application/json' }), (req, res) => {
  const event = verifyWebhook({ rawBody: req.body, headers: req.headers, secret: process.env.WEBHOOK_SECRET! });
  // event.kind is 'deposit' (trade_id) or 'purchase' (purchase_id); deduplicate on req.headers['webhook-id']
  res.sendStatus(200);
});
\`\`\`

Without it, with \`node:crypto\`:

\`\`\`ts
import crypto from 'node:crypto';
const SECRET = process.env.WEBHOOK_SECRET!; // whsec_…
const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64'); // accepts base64url and base64

export function verify(headers: Record<string, string>, rawBody: string): boolean {
  const id = headers['webhook-id'], ts = headers['webhook-timestamp'];
  if (!id || !ts || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const expected = crypto.createHmac('sha256', key).update(\`\${id}.\${ts}.\${rawBody}\`).digest();
  const standard = (headers['webhook-signature'] ?? '').split(' ').some((part) => {
    const [version, sig] = part.split(',');
    const got = Buffer.from(sig ?? '', 'base64');
    return version === 'v1' && got.length === expected.length && crypto.timingSafeEqual(got, expected);
  });
  const body = JSON.parse(rawBody);
  const sign = crypto.createHash('sha256').update(String(body.trade_id ?? body.purchase_id) + SECRET).digest('base64');
  return standard && typeof body.sign === 'string' && body.sign.length === sign.length && crypto.timingSafeEqual(Buffer.from(body.sign), Buffer.from(sign));
}
\`\`\`

## Python

With the SDK (\`sdk/python\`, standard library only):

\`\`\`python
from skin_gateway import verify_webhook, WebhookVerificationError

event = verify_webhook(raw_body, headers, WEBHOOK_SECRET)  # raises WebhookVerificationError
\`\`\`

Without it:

\`\`\`python
import base64, hashlib, hmac, json, time

def verify(headers, raw_body: bytes, secret: str) -> bool:
    enc = secret[len("whsec_"):].replace("-", "+").replace("_", "/")
    key = base64.b64decode(enc + "=" * (-len(enc) % 4))
    wid, ts = headers["webhook-id"], headers["webhook-timestamp"]
    if abs(time.time() - int(ts)) > 300:
        return False
    mac = hmac.new(key, f"{wid}.{ts}.".encode() + raw_body, hashlib.sha256).digest()
    standard = any(p.startswith("v1,") and hmac.compare_digest(base64.b64decode(p[3:]), mac)
                   for p in headers["webhook-signature"].split(" "))
    body = json.loads(raw_body)
    ident = body.get("trade_id", body.get("purchase_id"))
    sign = base64.b64encode(hashlib.sha256((str(ident) + secret).encode()).digest()).decode()
    return standard and hmac.compare_digest(body.get("sign", ""), sign)
\`\`\`

## PHP

\`\`\`php
<?php
$secret = getenv('WEBHOOK_SECRET');                       // whsec_…
$raw = file_get_contents('php://input');
$id = $_SERVER['HTTP_WEBHOOK_ID']; $ts = $_SERVER['HTTP_WEBHOOK_TIMESTAMP'];
$enc = strtr(substr($secret, 6), '-_', '+/');
$key = base64_decode($enc . str_repeat('=', (4 - strlen($enc) % 4) % 4));
$expected = 'v1,' . base64_encode(hash_hmac('sha256', "$id.$ts.$raw", $key, true));
$standard = abs(time() - (int)$ts) <= 300 && in_array(true, array_map(
    fn ($sig) => hash_equals($expected, $sig), explode(' ', $_SERVER['HTTP_WEBHOOK_SIGNATURE'])), true);
$body = json_decode($raw, true, 512, JSON_BIGINT_AS_STRING);
$sign = base64_encode(hash('sha256', ($body['trade_id'] ?? $body['purchase_id']) . $secret, true));
if (!$standard || !hash_equals($sign, $body['sign'] ?? '')) { http_response_code(400); exit; }
http_response_code(200);
\`\`\`

## curl and openssl

Send your endpoint a correctly signed test event (what the gateway would send), to try your receiver:

\`\`\`sh
SECRET=whsec_...; URL=http://localhost:3000/hooks/gateway
BODY='{"status":"completed","trade_id":1,"merchant_tx_id":"test","amount":1.5,"amount_currency":"usd"}'
ID=evt_test_1; TS=$(date +%s)
K=$(printf '%s' "\${SECRET#whsec_}" | tr '_-' '/+'); while [ $((\${#K} % 4)) -ne 0 ]; do K="$K="; done
HEXKEY=$(printf '%s' "$K" | base64 -d | od -An -tx1 | tr -d ' \\n')
SIGN=$(printf '%s' "1$SECRET" | openssl dgst -sha256 -binary | base64)
BODY=$(printf '%s' "$BODY" | sed "s|^{|{\\"sign\\":\\"$SIGN\\",|")
SIG=$(printf '%s' "$ID.$TS.$BODY" | openssl dgst -sha256 -mac HMAC -macopt hexkey:$HEXKEY -binary | base64)
curl -s "$URL" -H 'content-type: application/json' -H "webhook-id: $ID" -H "webhook-timestamp: $TS" \\
     -H "webhook-signature: v1,$SIG" -d "$BODY"
\`\`\`
`;

const GOING_LIVE = `
The API is the same in the sandbox and live; what changes is the platform and the care around keys.

- **Platform**: the operator runs the gateway with \`PLATFORM=steam\` and adds the trading bots
  (\`gateway bot add\`, operator console *Bots*); the sandbox helpers then answer 404.
- **Keys**: call the API from your backend only. Use a separate live merchant; rotate the API key
  (dashboard *API key*, or the operator) when anyone who saw it leaves — the old key stops at once.
  Turn on the **IP whitelist** with your servers' addresses.
- **Webhooks**: a public \`https\` URL (private and loopback targets are refused live), answering 2xx
  within 15 s; verify **both** signatures; deduplicate on \`webhook-id\`; after an outage, catch up
  with \`GET /events\`.
- **Idempotency**: always send \`merchant_tx_id\`; on a timeout look the record up instead of creating
  it again (deposits: 409 means it exists; purchases: the same id answers the stored purchase).
- **Money**: amounts are USD numbers with at most three decimals; \`bot_platform_id\` is a 64-bit
  integer — parse it with a big-integer-aware reader (the SDKs do).
- **Errors**: read the domain code from the first \`data\` entry with a \`code\`; retry only 5xx/503
  with backoff (honour \`Retry-After\`).
- **Checklist**: each magic partner of the [sandbox](/docs/guides/sandbox) handled; a deposit and a
  purchase taken through every status; a webhook outage survived (events API).
`;

const SDKS = `
Two SDKs ship with the gateway under \`sdk/\`, generated from and checked against \`/openapi.json\`
(the gateway's tests fail when either differs from the live document), each run through the whole
sandbox flow by \`npm test\`.

## TypeScript (\`sdk/typescript\`, no dependencies)

\`\`\`sh
cd /path/to/gateway/sdk/typescript && npm pack      # in a gateway checkout after its npm install: builds dist/, writes skin-gateway-sdk-1.0.0.tgz
cd /path/to/your/project && npm install /path/to/skin-gateway-sdk-1.0.0.tgz   # built JS + .d.ts, no dependencies: works offline
\`\`\`

\`\`\`ts
import { SkinGateway, ConflictError, ValidationError } from '@skin-gateway/sdk';

const gw = new SkinGateway({ baseUrl: 'https://gateway.example', apiKey: process.env.GATEWAY_KEY! });
const inv = await gw.getInventory({ game: 'csgo', partner: 12345678, token: 'abcdefgh' });
try {
  const dep = await gw.createDeposit({ merchant_tx_id: 'order-1', game: 'csgo', partner: 12345678, token: 'abcdefgh', asset_ids: [inv.items[0].id] });
  console.log(dep.status, dep.bot_platform_id); // bot_platform_id: a string, every digit kept
} catch (err) {
  if (err instanceof ValidationError) console.log(err.code, err.errors); // [{field, code, message}]
  if (err instanceof ConflictError) { /* merchant_tx_id used: adopt the existing deposit */ }
}
const page = await gw.getCatalogue({ game: 'csgo', full: 'true', page: '1' });
const again = await gw.getCatalogue({ game: 'csgo', full: 'true', page: '1' }, { etag: page.etag }); // again.modified false on 304
\`\`\`

Typed requests and answers, retries of lost answers, 429 and 5xx with the same body (idempotent on
\`merchant_tx_id\`), typed errors, catalogue pages with ETags and the whole-catalogue download,
events, sandbox helpers, and \`verifyWebhook\` for both signatures.

## Python (\`sdk/python\`, standard library only)

\`\`\`sh
pip install /path/to/gateway/sdk/python     # no package index needed, nothing left in the folder; or copy skin_gateway/ into your project
\`\`\`

\`\`\`python
from skin_gateway import SkinGateway, ConflictError, ValidationError

gw = SkinGateway("https://gateway.example", api_key)
inv = gw.get_inventory(game="csgo", partner=12345678, token="abcdefgh")
dep = gw.create_deposit(merchant_tx_id="order-1", game="csgo", partner=12345678, token="abcdefgh",
                        asset_ids=[inv["items"][0]["id"]])
\`\`\`

The same coverage; \`python3 -m unittest discover -s tests\` runs its own tests.
`;

export const GUIDES: Guide[] = [
  { slug: 'quick-start', title: 'Quick start', summary: 'From nothing to a completed sandbox deposit in five minutes.', body: QUICK_START },
  { slug: 'authentication', title: 'Authentication', summary: 'The API key, what 401 and 403 mean, IP whitelists.', body: intro.Authentication! },
  { slug: 'errors', title: 'Errors', summary: 'The envelope, the {field, code, message} list, domain codes, what to retry.', body: intro.Errors! },
  { slug: 'rate-limits', title: 'Rate limits', summary: 'Requests per minute per key, the RateLimit headers, 429 and Retry-After.', body: intro['Rate limits']! },
  { slug: 'idempotency', title: 'Idempotency', summary: 'merchant_tx_id, 409, safe retries, deduplicating webhooks.', body: intro.Idempotency! },
  { slug: 'webhooks', title: 'Webhooks', summary: 'Both signatures, verified in TypeScript, Python, PHP and curl; retries; the events API.', body: WEBHOOKS },
  { slug: 'sandbox', title: 'Sandbox', summary: 'The simulated platform, its test helpers and the magic partners.', body: intro.Sandbox! },
  { slug: 'sdks', title: 'SDKs', summary: 'The TypeScript and Python clients: install and use.', body: SDKS },
  { slug: 'going-live', title: 'Going live', summary: 'What changes from the sandbox, and a checklist.', body: GOING_LIVE },
];
