// Credentials a careless client puts in a request's query string are masked by one rule
// (src/domain/redaction.ts) wherever the request is recorded or shown: the stdout access log, the
// request-log row (masked before it is stored) and the dashboard's request-log page, for every role.
// Non-secret parameters keep their values.
import { Writable } from 'node:stream';
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { userOf } from '../dashboard/web-client.js';
import { isSensitiveName, maskText, maskUrl, SENSITIVE_NAME_PARTS } from '../../src/domain/redaction.js';

let gw: TestGateway;
let log = '';
let m: { id: number; api_key: string; webhook_secret: string };

// One secret value per sensitive name (each distinct, so a leak names its parameter).
const SECRETS: Record<string, string> = {
  token: 'SeCrEt78tok',
  api_key: '', // the merchant's real key, set below
  password: 'Pa55w0rd-value',
  passwd: 'passwd-value-1',
  pwd: 'pwd-value-22',
  client_secret: 'client-secret-33',
  session: 'session-value-44',
  csrf_token: 'csrf-value-55',
  authorization: 'Bearer-auth-66',
  signature: 'sig-value-77',
  credentials: 'cred-value-88',
  cookie: 'cookie-value-99',
  'X-Api-Key': 'header-named-key-11',
  'api%5Fkey': 'encoded-name-key-12', // api_key, percent-encoded
};
const PLAIN = { merchant_tx_id: 'mask-tx-1', note: 'visible-note-value' };

function query(): string {
  const pairs = [`merchant_tx_id=${PLAIN.merchant_tx_id}`, ...Object.entries(SECRETS).map(([k, v]) => `${k}=${encodeURIComponent(v)}`), `note=${PLAIN.note}`];
  return pairs.join('&');
}

beforeAll(async () => {
  gw = await startTestGateway({ LOG_REQUESTS: 'all' }, {
    logger: pino({ level: 'info' }, new Writable({ write(chunk, _e, cb) { log += String(chunk); cb(); } })),
    worker: false,
  });
  m = await gw.createMerchant({ name: 'Masking shop' });
  SECRETS.api_key = m.api_key;
}, 120_000);
afterAll(async () => gw?.stop());

describe('one masking rule for every request record', () => {
  it('the rule: sensitive names masked in any case and encoding, other parameters untouched', () => {
    for (const part of SENSITIVE_NAME_PARTS) expect(isSensitiveName(`x_${part.toUpperCase()}_y`), part).toBe(true);
    expect(isSensitiveName('api%5Fkey')).toBe(true);
    expect(isSensitiveName('merchant_tx_id')).toBe(false);
    expect(maskUrl('/a?merchant_tx_id=x&token=SeCrEt78&page=2')).toBe('/a?merchant_tx_id=x&token=***&page=2');
    expect(maskUrl('/a?token=1#frag')).toBe('/a?token=***#frag');
    expect(maskUrl('/deposit/abc123?x=1')).toBe('/deposit/***?x=1');
    // a URL carried in a parameter (the sign-in redirect's `next`) is masked inside
    expect(maskUrl('/dashboard/sign-in?next=%2Fdashboard%2Frequests%3Fx%3D1%26token%3DSeCrEt')).toBe('/dashboard/sign-in?next=%2Fdashboard%2Frequests%3Fx%3D1%26token%3D***');
    expect(maskUrl('/dashboard/sign-in?next=%2Fdashboard%3Fx%3D1')).toBe('/dashboard/sign-in?next=%2Fdashboard%3Fx%3D1');
    // the gateway's own key is masked under any name
    expect(maskUrl(`/a?q=${m.api_key}`)).toBe('/a?q=sk_***');
    expect(maskText('{"message":"x","data":{"token":"SeCrEt78","field":"f"}}')).toBe('{"message":"x","data":{"token":"***","field":"f"}}');
    expect(maskText('Route GET:/x?password=hunter22 not found')).toBe('Route GET:/x?password=*** not found');
  });

  it('a status lookup with secrets in its query: masked in the access log, the stored row and the dashboard page of every role', async () => {
    const url = `/purchase/status?${query()}`;
    const res = await gw.merchant(m.api_key, 'GET', url, undefined, { 'x-request-id': 'mask-req-1' });
    expect(res.status).toBeLessThan(500);
    await gw.app.requestLog.flush();

    // the stored row
    const rows = (await sql<{ path: string; error_body: string | null }>`select path, error_body from request_logs where merchant_id = ${m.id} and request_id = 'mask-req-1'`.execute(gw.ctx.db)).rows;
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows[0]);
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(stored.includes(value), `${name} stored`).toBe(false);
      expect(stored.includes(encodeURIComponent(value)), `${name} stored (encoded)`).toBe(false);
      expect(rows[0]!.path, name).toContain(`${name}=***`);
    }
    expect(rows[0]!.path).toContain(`merchant_tx_id=${PLAIN.merchant_tx_id}`);
    expect(rows[0]!.path).toContain(`note=${PLAIN.note}`);

    // the access log
    await new Promise((r) => setImmediate(r));
    const line = log.split('\n').find((l) => l.includes('"reqId":"mask-req-1"'));
    expect(line).toBeDefined();
    for (const [name, value] of Object.entries(SECRETS)) expect(line!.includes(encodeURIComponent(value)), `${name} in the access log`).toBe(false);
    expect(line).toContain(`note=${PLAIN.note}`);

    // the dashboard page, for each role
    for (const role of ['owner', 'developer', 'viewer']) {
      const web = await userOf(gw, m.id, `${role}@masking.example`, role);
      const page = await web.get('/dashboard/requests?request_id=mask-req-1');
      expect(page.status, role).toBe(200);
      for (const [name, value] of Object.entries(SECRETS)) {
        expect(page.body.includes(value), `${name} shown to ${role}`).toBe(false);
        expect(page.body.includes(encodeURIComponent(value)), `${name} shown to ${role} (encoded)`).toBe(false);
      }
      expect(page.body).toContain(`note=${PLAIN.note}`);
      expect(page.body).toContain(PLAIN.merchant_tx_id);
    }
  });

  it('a stored error answer that quotes a secret field is masked before it is stored', async () => {
    // The recorder's onSend with an error answer naming secret fields (what a platform or
    // validation message could quote), through the real hook and the real table.
    const request = { method: 'POST', url: '/api/v1/merchant/inventory?api_key=inline-key-1', id: 'mask-req-2', ip: '127.0.0.1', body: { merchant_tx_id: 'mask-tx-2' }, query: {}, merchant: { id: m.id, api_key_prefix: m.api_key.slice(0, 8) } };
    const payload = JSON.stringify({ success: false, message: `bad token=inline-tok-2 for ${m.api_key}`, data: [{ field: 'InventoryRequest.token', token: 'body-token-3', password: 'body-pass-4', code: 'x' }] });
    await new Promise<void>((done) => gw.app.requestLog.onSend(request as never, { statusCode: 400, elapsedTime: 1 } as never, payload, () => done()));
    await gw.app.requestLog.flush();
    const row = (await sql<{ path: string; error_body: string }>`select path, error_body from request_logs where request_id = 'mask-req-2'`.execute(gw.ctx.db)).rows[0]!;
    for (const secret of ['inline-key-1', 'inline-tok-2', 'body-token-3', 'body-pass-4', m.api_key]) expect(JSON.stringify(row).includes(secret), secret).toBe(false);
    expect(row.error_body).toContain('InventoryRequest.token'); // a field name is not a secret
    expect(row.error_body).toContain('"code":"x"');
  });
});
