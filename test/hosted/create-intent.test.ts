// POST /merchant/create-intent (spec 4.1): every rule at its edge and one past, idempotency by the
// database constraint, magic partners (DESIGN 6), and the shape of the hosted page URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { PlatformUnavailableError, USER_ERROR_FIELD, type UserErrorCode } from '../../src/platform/port.js';
import { MAGIC_USER_ERRORS } from '../fixtures.js';

let gw: TestGateway;
let m: Awaited<ReturnType<TestGateway['createMerchant']>>;
let seq = 0;
const txId = () => `intent-${Date.now()}-${++seq}`;

beforeAll(async () => {
  gw = await startTestGateway();
  m = await gw.createMerchant({ name: 'Intent merchant' });
});
afterAll(async () => gw?.stop());

const createIntent = (body: unknown, key = m.api_key) => gw.merchant(key, 'POST', '/create-intent', body);

async function expectValidation(body: Record<string, unknown>, field: string, code: string) {
  const res = await createIntent({ merchant_tx_id: txId(), ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.message).toBe('validation error');
  expect(res.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ field, code })]));
  return res;
}

async function expectOk(body: Record<string, unknown>) {
  const res = await createIntent({ merchant_tx_id: txId(), ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.success).toBe(true);
  return res;
}

describe('create-intent: the answer', () => {
  it('answers {id, merchant_tx_id, url} with url = PUBLIC_URL/deposit/<256-bit base64url token>', async () => {
    const id = txId();
    const res = await createIntent({ merchant_tx_id: id });
    expect(res.status).toBe(200);
    expect(res.body.message).toBeTypeOf('string');
    expect(Object.keys(res.body.data).sort()).toEqual(['id', 'merchant_tx_id', 'url']);
    expect(res.body.data.merchant_tx_id).toBe(id);
    expect(Number.isInteger(res.body.data.id)).toBe(true);
    const prefix = `${gw.ctx.config.publicUrl}/deposit/`;
    expect(res.body.data.url.startsWith(prefix)).toBe(true);
    const token = res.body.data.url.slice(prefix.length);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
  });

  it('every intent gets a different token', async () => {
    const urls = new Set<string>();
    for (let i = 0; i < 20; i++) urls.add((await expectOk({})).body.data.url);
    expect(urls.size).toBe(20);
  });

  it('is a deposits row: flow intent, status new, with what was given', async () => {
    const res = await expectOk({
      game: 'rust',
      partner: 12345678,
      token: 'AbCd1234',
      success_url: 'https://shop.example/ok',
      fail_url: 'https://shop.example/fail',
      result_url: 'https://shop.example/hook',
      custom_currency: 'EUR',
      custom_currency_multiplier: 1.5,
      custom_currency_rate: 0.9,
    });
    const row = await gw.ctx.db.selectFrom('deposits').selectAll().where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      merchant_id: m.id,
      flow: 'intent',
      status: 'new',
      game: 'rust',
      partner: 12345678,
      token: 'AbCd1234',
      platform_id: String(76561197960265728n + 12345678n),
      success_url: 'https://shop.example/ok',
      fail_url: 'https://shop.example/fail',
      result_url: 'https://shop.example/hook',
      custom_currency: 'EUR',
      custom_currency_multiplier: 1.5,
      custom_currency_rate: 0.9,
    });
  });

  it('the intent is visible through deposit status like any other deposit (status new)', async () => {
    const res = await expectOk({ success_url: 'https://shop.example/ok' });
    const byId = await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${res.body.data.id}`);
    expect(byId.status, JSON.stringify(byId.body)).toBe(200);
    expect(byId.body.data).toMatchObject({ id: res.body.data.id, merchant_tx_id: res.body.data.merchant_tx_id, status: 'new', success_url: 'https://shop.example/ok' });
    const byTx = await gw.merchant(m.api_key, 'GET', `/deposit/status?merchant_tx_id=${encodeURIComponent(res.body.data.merchant_tx_id)}`);
    expect(byTx.body.data.id).toBe(res.body.data.id);
  });
});

describe('create-intent: validation (each rule at its edge and one past)', () => {
  it('merchant_tx_id is required', async () => {
    const res = await createIntent({ game: 'csgo' });
    expect(res.status).toBe(400);
    expect(res.body.data[0]).toMatchObject({ field: 'CreateIntentRequest.merchant_tx_id', code: 'required' });
  });

  it('merchant_tx_id: 1 to 128 characters', async () => {
    await expectValidation({ merchant_tx_id: '' }, 'CreateIntentRequest.merchant_tx_id', 'len');
    await expectOk({ merchant_tx_id: `x${Date.now()}`.padEnd(128, 'x') });
    await expectValidation({ merchant_tx_id: 'y'.repeat(129) }, 'CreateIntentRequest.merchant_tx_id', 'len');
    await expectValidation({ merchant_tx_id: 12345 }, 'CreateIntentRequest.merchant_tx_id', 'type');
  });

  it('game: one of csgo, rust, dota2, tf2', async () => {
    for (const game of ['csgo', 'rust', 'dota2', 'tf2']) await expectOk({ game });
    await expectValidation({ game: 'xbox' }, 'CreateIntentRequest.game', 'oneof');
    await expectValidation({ game: 'CSGO' }, 'CreateIntentRequest.game', 'oneof');
  });

  it('partner: an integer from 8; token: exactly 8 characters; only together', async () => {
    await expectOk({ partner: 8, token: 'abcdefgh' });
    await expectValidation({ partner: 7, token: 'abcdefgh' }, 'CreateIntentRequest.partner', 'min');
    await expectOk({ partner: 4294967295, token: 'abcdefgh' });
    await expectValidation({ partner: 4294967296, token: 'abcdefgh' }, 'CreateIntentRequest.partner', 'max');
    await expectValidation({ partner: 12.5, token: 'abcdefgh' }, 'CreateIntentRequest.partner', 'numeric');
    await expectValidation({ partner: '12345678', token: 'abcdefgh' }, 'CreateIntentRequest.partner', 'numeric');
    await expectValidation({ partner: 12345678, token: 'abcdefg' }, 'CreateIntentRequest.token', 'len');
    await expectValidation({ partner: 12345678, token: 'abcdefghi' }, 'CreateIntentRequest.token', 'len');
    await expectValidation({ partner: 12345678 }, 'CreateIntentRequest.token', 'required');
    await expectValidation({ token: 'abcdefgh' }, 'CreateIntentRequest.partner', 'required');
  });

  it('success_url, fail_url, result_url: valid http(s) URLs', async () => {
    for (const field of ['success_url', 'fail_url', 'result_url']) {
      await expectOk({ [field]: 'https://shop.example/path?x=1' });
      await expectOk({ [field]: 'http://shop.example' });
      await expectValidation({ [field]: 'ftp://shop.example/file' }, `CreateIntentRequest.${field}`, 'url');
      await expectValidation({ [field]: 'javascript:alert(1)' }, `CreateIntentRequest.${field}`, 'url');
      await expectValidation({ [field]: 'not a url' }, `CreateIntentRequest.${field}`, 'url');
      await expectValidation({ [field]: '' }, `CreateIntentRequest.${field}`, 'url');
    }
    const base = 'https://shop.example/';
    await expectOk({ success_url: base + 'a'.repeat(2048 - base.length) });
    await expectValidation({ success_url: base + 'a'.repeat(2049 - base.length) }, 'CreateIntentRequest.success_url', 'len');
  });

  it('result_url goes through the webhook target check (private targets refused outside the sandbox default)', async () => {
    // The sandbox allows loopback targets by default.
    await expectOk({ result_url: 'http://127.0.0.1:9/hook' });
    const strict = await startTestGateway({ WEBHOOK_ALLOW_PRIVATE: 'false' }, { databaseUrl: gw.databaseUrl, worker: false });
    try {
      const res = await strict.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: txId(), result_url: 'http://127.0.0.1:9/hook' });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('validation error');
      expect(res.body.data[0].field).toMatch(/result_url$/);
      const okRes = await strict.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: txId(), success_url: 'http://127.0.0.1:9/ok' });
      expect(okRes.status).toBe(200); // success_url and fail_url are browser redirects, not server targets
    } finally {
      await strict.stop();
    }
  });

  it('custom currency: all three fields or none', async () => {
    await expectOk({ custom_currency: 'EUR', custom_currency_multiplier: 1, custom_currency_rate: 1 });
    const one = await expectValidation({ custom_currency: 'EUR' }, 'CreateIntentRequest.custom_currency_multiplier', 'required');
    expect(one.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'CreateIntentRequest.custom_currency_rate', code: 'required' })]));
    await expectValidation({ custom_currency_multiplier: 1, custom_currency_rate: 1 }, 'CreateIntentRequest.custom_currency', 'required');
    await expectValidation({ custom_currency: 'EUR', custom_currency_rate: 1 }, 'CreateIntentRequest.custom_currency_multiplier', 'required');
  });

  it('custom_currency: 1 to 4 characters', async () => {
    const cc = (custom_currency: unknown) => ({ custom_currency, custom_currency_multiplier: 1, custom_currency_rate: 1 });
    await expectOk(cc('E'));
    await expectOk(cc('ABCD'));
    await expectValidation(cc(''), 'CreateIntentRequest.custom_currency', 'len');
    await expectValidation(cc('ABCDE'), 'CreateIntentRequest.custom_currency', 'len');
  });

  it('custom_currency_multiplier: 0.5 to 2.0', async () => {
    const cc = (custom_currency_multiplier: unknown) => ({ custom_currency: 'PTS', custom_currency_multiplier, custom_currency_rate: 1 });
    await expectOk(cc(0.5));
    await expectOk(cc(2));
    await expectValidation(cc(0.49), 'CreateIntentRequest.custom_currency_multiplier', 'min');
    await expectValidation(cc(2.01), 'CreateIntentRequest.custom_currency_multiplier', 'max');
    await expectValidation(cc('1'), 'CreateIntentRequest.custom_currency_multiplier', 'numeric');
  });

  it('custom_currency_rate: at least 0.1', async () => {
    const cc = (custom_currency_rate: unknown) => ({ custom_currency: 'PTS', custom_currency_multiplier: 1, custom_currency_rate });
    await expectOk(cc(0.1));
    await expectOk(cc(1000));
    await expectValidation(cc(0.09), 'CreateIntentRequest.custom_currency_rate', 'min');
    await expectValidation(cc(0), 'CreateIntentRequest.custom_currency_rate', 'min');
  });

  it('custom_currency_rate: at most 1 000 000 (keeps custom_currency_sum exact)', async () => {
    const cc = (custom_currency_rate: unknown) => ({ custom_currency: 'PTS', custom_currency_multiplier: 2, custom_currency_rate });
    await expectOk(cc(1_000_000));
    await expectValidation(cc(1_000_000.01), 'CreateIntentRequest.custom_currency_rate', 'max');
    await expectValidation(cc(1e300), 'CreateIntentRequest.custom_currency_rate', 'max');
  });

  it('reports every failing field at once', async () => {
    const res = await createIntent({ game: 'xbox', success_url: 'nope', custom_currency_rate: 0 });
    expect(res.status).toBe(400);
    const fields = res.body.data.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining([
      'CreateIntentRequest.merchant_tx_id',
      'CreateIntentRequest.game',
      'CreateIntentRequest.success_url',
      'CreateIntentRequest.custom_currency_rate',
    ]));
  });

  it('unknown body fields are ignored', async () => {
    await expectOk({ something_new: 1, amount: 5 });
  });

  it('never a 500 on bad input: malformed JSON, wrong body types', async () => {
    const bad = await gw.app.inject({ method: 'POST', url: '/api/v1/merchant/create-intent', headers: { 'x-api-key': m.api_key, 'content-type': 'application/json' }, payload: '{"merchant_tx_id":' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ success: false, message: 'invalid request body' });
    for (const body of ['[]', 'null', '"x"', '42', '{"merchant_tx_id":null}', '{"merchant_tx_id":"a","partner":null,"token":null}']) {
      const res = await gw.app.inject({ method: 'POST', url: '/api/v1/merchant/create-intent', headers: { 'x-api-key': m.api_key, 'content-type': 'application/json' }, payload: body });
      expect(res.statusCode, body).toBe(400);
      expect(res.json().success).toBe(false);
    }
  });

  it('needs the API key', async () => {
    const res = await gw.app.inject({ method: 'POST', url: '/api/v1/merchant/create-intent', headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(res.statusCode).toBe(401);
  });
});

describe('create-intent: duplicates (409 by the database constraint)', () => {
  it('a repeated merchant_tx_id is 409 already exist error with code exist; nothing new is stored', async () => {
    const id = txId();
    expect((await createIntent({ merchant_tx_id: id })).status).toBe(200);
    const dup = await createIntent({ merchant_tx_id: id, game: 'csgo' });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ success: false, message: 'already exist error' });
    expect(dup.body.data[0]).toMatchObject({ field: 'merchant_tx_id', code: 'exist' });
    const rows = await gw.ctx.db.selectFrom('deposits').select('id').where('merchant_id', '=', m.id).where('merchant_tx_id', '=', id).execute();
    expect(rows).toHaveLength(1);
  });

  it('a merchant_tx_id used by another deposit flow is a duplicate too', async () => {
    const id = txId();
    await gw.ctx.db.insertInto('deposits').values({ merchant_id: m.id, merchant_tx_id: id, flow: 'inventory', status: 'failed' }).execute();
    expect((await createIntent({ merchant_tx_id: id })).status).toBe(409);
  });

  it('the same merchant_tx_id at another merchant is fine', async () => {
    const other = await gw.createMerchant({ name: 'Other intent merchant' });
    const id = txId();
    expect((await createIntent({ merchant_tx_id: id })).status).toBe(200);
    expect((await createIntent({ merchant_tx_id: id }, other.api_key)).status).toBe(200);
  });

  it('10 concurrent identical requests: exactly one 200, nine 409', async () => {
    const id = txId();
    const results = await Promise.all(Array.from({ length: 10 }, () => createIntent({ merchant_tx_id: id, game: 'dota2' })));
    const codes = results.map((r) => r.status).sort();
    expect(codes).toEqual([200, ...Array(9).fill(409)]);
    const rows = await gw.ctx.db.selectFrom('deposits').select('id').where('merchant_id', '=', m.id).where('merchant_tx_id', '=', id).execute();
    expect(rows).toHaveLength(1);
  });
});

describe('create-intent: trade link checked with the platform (magic partners, spec 7.3)', () => {
  const magic = MAGIC_USER_ERRORS.map(([partner, code]) => [partner, code as UserErrorCode] as const);
  for (const [partner, code] of magic) {
    it(`partner ${partner} → 400 validation error, ${code} first on field ${USER_ERROR_FIELD[code]}; nothing stored`, async () => {
      const id = txId();
      const res = await createIntent({ merchant_tx_id: id, partner, token: 'abcdefgh', game: 'csgo' });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('validation error');
      expect(res.body.data[0]).toMatchObject({ field: USER_ERROR_FIELD[code], code });
      expect(res.body.data[0].message).toBeTypeOf('string');
      const rows = await gw.ctx.db.selectFrom('deposits').select('id').where('merchant_tx_id', '=', id).execute();
      expect(rows).toHaveLength(0);
    });
  }

  it('the check uses csgo when no game is given', async () => {
    const res = await createIntent({ merchant_tx_id: txId(), partner: 90000007, token: 'abcdefgh' });
    expect(res.status).toBe(400);
    expect(res.body.data[0].code).toBe('permissions');
  });

  it('partner 90000009 (empty inventory) has a valid trade link: the intent is created', async () => {
    await expectOk({ partner: 90000009, token: 'abcdefgh', game: 'csgo' });
  });

  it('without a trade link the platform is not asked', async () => {
    await expectOk({ game: 'tf2' });
  });

  it('partner 90000010 (the platform goes silent only when an offer is sent) has a valid trade link', async () => {
    await expectOk({ partner: 90000010, token: 'abcdefgh', game: 'csgo' });
  });

  it('the platform failing → 500 integration service error (as on every deposit path); nothing stored', async () => {
    const p = gw.ctx.platform;
    const orig = p.checkTradeLink;
    p.checkTradeLink = async () => {
      throw new PlatformUnavailableError('down');
    };
    try {
      const id = txId();
      const res = await createIntent({ merchant_tx_id: id, partner: 12345678, token: 'abcdefgh' });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ success: false, message: 'integration service error' });
      expect(await gw.ctx.db.selectFrom('deposits').select('id').where('merchant_tx_id', '=', id).execute()).toHaveLength(0);
    } finally {
      p.checkTradeLink = orig;
    }
  });

  it('the platform not answering: the check gives up after DEPOSIT_TIMEOUT_MS → 500 integration service error', async () => {
    const p = gw.ctx.platform;
    const orig = { check: p.checkTradeLink, timeout: gw.ctx.config.depositTimeoutMs };
    p.checkTradeLink = () => new Promise(() => {});
    gw.ctx.config.depositTimeoutMs = 200;
    try {
      const id = txId();
      const t0 = Date.now();
      const res = await createIntent({ merchant_tx_id: id, partner: 12345678, token: 'abcdefgh' });
      const took = Date.now() - t0;
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ success: false, message: 'integration service error' });
      expect(took).toBeGreaterThanOrEqual(180); // the platform never answers: an answer at all is the deadline's
      expect(await gw.ctx.db.selectFrom('deposits').select('id').where('merchant_tx_id', '=', id).execute()).toHaveLength(0);
    } finally {
      p.checkTradeLink = orig.check;
      gw.ctx.config.depositTimeoutMs = orig.timeout;
    }
  });
});
