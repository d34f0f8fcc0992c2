// The TypeScript SDK (sdk/typescript) against a live gateway: generated from the served
// /openapi.json (the committed file must equal a fresh generation), then the full sandbox flow
// through it over real HTTP, with a real webhook receiver.
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { nextPartner, nextTx, TOKEN } from '../deposits/deposit-helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { generate, GENERATED_FILE, merchantOperations } from '../../sdk/typescript/scripts/generate.js';
import {
  ConflictError,
  GatewayError,
  OPERATIONS,
  parseJson,
  SkinGateway,
  ValidationError,
  verifyWebhook,
  WebhookVerificationError,
  webhookKey,
} from '../../sdk/typescript/src/index.js';

let gw: TestGateway;
let rx: Receiver;
let m: Awaited<ReturnType<TestGateway['createMerchant']>>;
let sdk: SkinGateway;
let doc: any;

beforeAll(async () => {
  rx = await startReceiver();
  gw = await startTestGateway();
  m = await gw.createMerchant({ name: 'SDK merchant', webhook_url: rx.url('/hook') });
  await gw.topUp(m.id, 10_000);
  sdk = new SkinGateway({ baseUrl: gw.url, apiKey: m.api_key, retryDelayMs: 10 });
  doc = await (await fetch(`${gw.url}/openapi.json`)).json();
});
afterAll(async () => {
  await gw?.stop();
  await rx?.close();
});

describe('generated from the live document', () => {
  it('the committed api.gen.ts is what the served /openapi.json generates (SDK_WRITE=1 rewrites it)', async () => {
    const fresh = await generate(doc);
    if (process.env.SDK_WRITE === '1') await fs.writeFile(GENERATED_FILE, fresh);
    expect(await fs.readFile(GENERATED_FILE, 'utf8')).toBe(fresh);
  });

  it('every merchant operation of the document has a client method, and the client calls only those', () => {
    const live = merchantOperations(doc);
    expect(OPERATIONS).toEqual(live);
    expect(Object.keys(live).length).toBeGreaterThanOrEqual(18);
    for (const id of Object.keys(live)) expect(typeof (sdk as any)[id], id).toBe('function');
  });
});

describe('the sandbox flow through the SDK', () => {
  it('inventory → deposit → accept → verified webhook → status, with the 64-bit bot id exact', async () => {
    const partner = nextPartner();
    const inv = await sdk.getInventory({ game: 'csgo', partner, token: TOKEN });
    expect(inv.items.length).toBeGreaterThan(1);
    const tx = nextTx('sdk');
    const dep = await sdk.createDeposit({ merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: [inv.items[0]!.id] });
    expect(dep.status).toBe('active');
    // the raw answer's digits, read without JSON.parse: the SDK keeps every one of them
    const raw = await (await fetch(`${gw.url}/api/v1/merchant/deposit/status?id=${dep.id}`, { headers: { 'x-api-key': m.api_key } })).text();
    const digits = /"bot_platform_id":(\d+)/.exec(raw)![1]!;
    expect(BigInt(digits)).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
    expect(dep.bot_platform_id).toBe(digits);
    expect(String(JSON.parse(raw).data.bot_platform_id)).not.toBe(digits); // what plain JSON.parse would have given

    await sdk.sandboxDepositAction(dep.id, 'accept', { hold: false });
    const delivered = await eventually(async () => rx.received.find((r) => r.body?.trade_id === dep.id && r.body?.status === 'completed'), 30_000);
    const body = verifyWebhook({ rawBody: delivered.raw, headers: delivered.headers as Record<string, string>, secret: m.webhook_secret });
    expect(body).toMatchObject({ kind: 'deposit', trade_id: dep.id, merchant_tx_id: tx, status: 'completed' });
    // one byte changed, a wrong secret, or an old timestamp: refused
    expect(() => verifyWebhook({ rawBody: delivered.raw.replace('completed', 'completeD'), headers: delivered.headers as Record<string, string>, secret: m.webhook_secret })).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook({ rawBody: delivered.raw, headers: delivered.headers as Record<string, string>, secret: `${m.webhook_secret}x` })).toThrow(WebhookVerificationError);
    const ts = Number(delivered.headers['webhook-timestamp']);
    expect(() => verifyWebhook({ rawBody: delivered.raw, headers: delivered.headers as Record<string, string>, secret: m.webhook_secret, nowSec: ts + 301 })).toThrow(WebhookVerificationError);
    expect(verifyWebhook({ rawBody: delivered.raw, headers: delivered.headers as Record<string, string>, secret: m.webhook_secret, nowSec: ts + 300 }).kind).toBe('deposit');

    const status = await sdk.getDepositStatus({ id: dep.id } as never);
    expect(status).toMatchObject({ id: dep.id, status: 'completed' });
    // the events API shows the same event
    const events = await sdk.listEvents({ deposit_id: dep.id } as never);
    expect(events.events.map((e) => e.id)).toContain(delivered.headers['webhook-id']);
  });

  it('the hash-name flow: get-prices draft → commit with the user\'s assets', async () => {
    const partner = nextPartner();
    const inv = await sdk.getInventory({ game: 'csgo', partner, token: TOKEN });
    // Plain names only: a phased item is quoted by "<name> - <phase>" (test/deposits/real-items covers that).
    const picked = inv.items.filter((i) => !(i as { phase?: string }).phase && (i as { tradable?: boolean }).tradable !== false).slice(0, 2);
    expect(picked.length).toBe(2);
    const draft = await sdk.getPrices({ game: 'csgo', marketHashNames: picked.map((i) => i.name) });
    expect(draft.id).toBeGreaterThan(0);
    const dep = await sdk.createDepositByHashName({
      id: draft.id!, merchant_tx_id: nextTx('sdk-h'), game: 'csgo', partner, token: TOKEN,
      items: picked.map((i) => ({ asset_id: i.id, name: i.name })),
    });
    expect(dep.status).toBe('active');
    expect(typeof dep.bot_platform_id).toBe('string');
  });

  it('catalogue pages with ETags (304 while current), the whole catalogue, purchase → status → history', async () => {
    const first = await sdk.getCatalogue({ game: 'csgo', full: 'true', page: '1' } as never);
    expect(first.modified).toBe(true);
    expect(first.etag).toBeTruthy();
    const again = await sdk.getCatalogue({ game: 'csgo', full: 'true', page: '1' } as never, { etag: first.etag });
    expect(again).toEqual({ modified: false, etag: first.etag });
    let walked = 0;
    for await (const p of sdk.walkCatalogue({ game: 'csgo', full: 'true' } as never)) walked += (p.page as any).items.length;
    const whole = (await sdk.downloadCatalogue({ game: 'csgo', full: 'true' } as never)) as any;
    expect(whole.items.length).toBe(walked);

    const listing = (first.page as any).items[0];
    const tx = nextTx('sdk-p');
    const p = await sdk.createPurchase({ partner: 12345678, token: TOKEN, game: 'csgo', asset_id: listing.id, merchant_tx_id: tx } as never);
    expect(['pending', 'active']).toContain(p.status);
    const st = await sdk.getPurchaseStatus({ merchant_tx_id: tx } as never);
    expect(st.id).toBe(p.id);
    const history = await sdk.listPurchases({ search: tx } as never);
    expect(history.data.map((x: { id: number }) => x.id)).toContain(p.id);
  });

  it('a 409 and a 400 come as typed errors with the {field, code, message} list', async () => {
    const partner = nextPartner();
    const inv = await sdk.getInventory({ game: 'csgo', partner, token: TOKEN });
    const tx = nextTx('sdk-dup');
    await sdk.createDeposit({ merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: [inv.items[0]!.id] });
    const dup = await sdk.createDeposit({ merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: [inv.items[1]!.id] }).catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(ConflictError);
    expect((dup as ConflictError).status).toBe(409);

    const bad = await sdk.getInventory({ game: 'csgo', partner: 90000001, token: TOKEN }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).status).toBe(400);
    expect((bad as ValidationError).code).toBe('trade_link_invalid');
    expect((bad as ValidationError).errors[0]).toMatchObject({ field: expect.any(String), code: 'trade_link_invalid', message: expect.any(String) });

    const schema = await sdk.getInventory({ game: 'csgo', partner: 1, token: TOKEN } as never).catch((e: unknown) => e);
    expect(schema).toBeInstanceOf(GatewayError);
    expect((schema as GatewayError).errors[0]).toMatchObject({ field: expect.stringContaining('partner'), code: expect.any(String) });
  });

  it('retries keep idempotency: a lost answer is retried with the same merchant_tx_id, one record results', async () => {
    // A fetch that performs the first request of each URL but loses its answer (as a cut connection would).
    const seen = new Set<string>();
    const lossy: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const key = `${init?.method} ${String(input)}`;
      if (!seen.has(key)) {
        seen.add(key);
        await res.text();
        throw new TypeError('fetch failed: socket hang up');
      }
      return res;
    };
    const flaky = new SkinGateway({ baseUrl: gw.url, apiKey: m.api_key, retryDelayMs: 10, fetch: lossy });
    const first = await sdk.getCatalogue({ game: 'csgo', full: 'true', page: '2' } as never);
    const tx = nextTx('sdk-retry');
    const p = await flaky.createPurchase({ partner: 12345678, token: TOKEN, game: 'csgo', asset_id: (first.page as any).items[0].id, merchant_tx_id: tx } as never);
    const rows = await gw.ctx.db.selectFrom('purchases').select('id').where('merchant_id', '=', m.id).where('merchant_tx_id', '=', tx).execute();
    expect(rows.map((r) => Number(r.id))).toEqual([p.id]);

    const partner = nextPartner();
    const inv = await sdk.getInventory({ game: 'csgo', partner, token: TOKEN });
    const dtx = nextTx('sdk-retry-d');
    const d = await flaky.createDeposit({ merchant_tx_id: dtx, game: 'csgo', partner, token: TOKEN, asset_ids: [inv.items[0]!.id] });
    const drows = await gw.ctx.db.selectFrom('deposits').select('id').where('merchant_id', '=', m.id).where('merchant_tx_id', '=', dtx).execute();
    expect(drows.map((r) => Number(r.id))).toEqual([d.id]);

    // with no retries left, the loss is a ConnectionError
    const none = new SkinGateway({ baseUrl: gw.url, apiKey: m.api_key, maxRetries: 0, fetch: lossy });
    await expect(none.getBalance()).rejects.toThrow(/no answer/);
  });
});

describe('pure parts', () => {
  it('parseJson keeps int64 fields exact and leaves other numbers alone', () => {
    const v = parseJson<any>('{"bot_platform_id":76561198000000103,"amount":12.5,"n":{"bot_platform_id": null},"s":"\\"bot_platform_id\\":1"}');
    expect(v.bot_platform_id).toBe('76561198000000103');
    expect(v.amount).toBe(12.5);
    expect(v.n.bot_platform_id).toBeNull();
    expect(v.s).toBe('"bot_platform_id":1');
  });

  it('the webhook key decodes the base64url and the standard base64 alphabets to the same bytes', () => {
    const bytes = Buffer.from([251, 255, 190, 1, 2, 3, 250, 254, 253, 0, 7, 8]);
    expect(webhookKey(`whsec_${bytes.toString('base64url')}`)).toEqual(bytes);
    expect(webhookKey(`whsec_${bytes.toString('base64')}`)).toEqual(bytes);
  });
});
