// Slow clients cannot hold connections (issue 9): a real socket trickling bytes is cut off by the
// request and headers timeouts (short settings here), and an unauthenticated request is answered
// 401 and closed without waiting for its body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { timeoutOptions } from '../../src/http/edges.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers.js';
import { parseResponse, rawConnect, type RawConnection } from './raw-http.js';

const REQUEST_TIMEOUT_MS = 1500;
const HEADERS_TIMEOUT_MS = 800;
let gw: TestGateway;
let token: string;

beforeAll(async () => {
  gw = await startTestGateway({
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    HTTP_IDLE_TIMEOUT_MS: '5000',
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
  });
  const m = await gw.createMerchant();
  const intent = await gw.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: 'slow-1' });
  token = new URL(intent.body.data.url).pathname.split('/').pop()!;
});
afterAll(async () => gw?.stop());

/** Sends one byte every `everyMs` until the server closes the connection. */
function trickle(c: RawConnection, bytes: string, everyMs: number): NodeJS.Timeout {
  let i = 0;
  const timer = setInterval(() => {
    if (i >= bytes.length || !c.write(bytes[i++]!)) clearInterval(timer);
  }, everyMs);
  return timer;
}

describe('timeouts against slow clients', () => {
  it('a body trickled one byte at a time to the public hosted API is cut off with 408 after the request timeout', async () => {
    const c = await rawConnect(gw.url);
    c.write(`POST /api/v1/hosted/${token}/inventory HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
    const timer = trickle(c, '"game":"csgo"'.repeat(100), 100);
    const { text, afterMs } = await c.closed(REQUEST_TIMEOUT_MS + 3000);
    clearInterval(timer);
    const r = parseResponse(text);
    expect(r.status).toBe(408);
    expect(JSON.parse(r.body)).toEqual({ success: false, message: 'request timeout: the request was not received in time' });
    expect(r.headers['x-request-id']).toBeTruthy();
    expect(afterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
  });

  it('headers trickled one byte at a time are cut off after the headers timeout', async () => {
    const c = await rawConnect(gw.url);
    c.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const timer = trickle(c, `X-Slow: ${'a'.repeat(200)}\r\n\r\n`, 50);
    const { text, afterMs } = await c.closed(HEADERS_TIMEOUT_MS + 3000);
    clearInterval(timer);
    expect(parseResponse(text).status).toBe(408);
    expect(afterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1000);
  });

  it('an unauthenticated merchant request is answered 401 and closed at once, its body unread', async () => {
    const c = await rawConnect(gw.url);
    c.write('POST /api/v1/merchant/purchase HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":');
    const { text, afterMs } = await c.closed(REQUEST_TIMEOUT_MS - 200);
    const r = parseResponse(text);
    expect(r.status).toBe(401);
    expect(r.headers.connection).toBe('close');
    expect(JSON.parse(r.body)).toEqual({ success: false, message: 'missing authorization header' });
    expect(afterMs).toBeLessThan(REQUEST_TIMEOUT_MS - 200);
  });

  it('a wrong key with a chunked body is closed the same way', async () => {
    const c = await rawConnect(gw.url);
    c.write('POST /api/v1/merchant/purchase HTTP/1.1\r\nHost: x\r\nX-Api-Key: sk_wrong\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n');
    const { text } = await c.closed(REQUEST_TIMEOUT_MS - 200);
    expect(parseResponse(text).status).toBe(401);
  });

  it('an announced body over BODY_LIMIT_BYTES → 413 at once and the connection closes unread', async () => {
    const c = await rawConnect(gw.url);
    c.write(`POST /api/admin/merchants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n{"name":`);
    const { text, afterMs } = await c.closed(REQUEST_TIMEOUT_MS - 200);
    const r = parseResponse(text);
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toEqual({ success: false, message: 'request body too large' });
    expect(afterMs).toBeLessThan(REQUEST_TIMEOUT_MS - 200);
  });

  it('a complete request keeps its keep-alive connection (the close is only for unread bodies)', async () => {
    const c = await rawConnect(gw.url);
    c.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 200));
    expect(parseResponse(c.received()).status).toBe(200);
    expect(c.socket.destroyed).toBe(false);
    c.write('GET /api/v1/merchant/balance HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 200));
    expect(c.received()).toContain('HTTP/1.1 401');
    expect(c.socket.destroyed).toBe(false);
    c.socket.destroy();
  });
});

describe('timeout settings', () => {
  it('have documented defaults and are validated', () => {
    const c = loadConfig({});
    expect([c.httpRequestTimeoutMs, c.httpHeadersTimeoutMs, c.httpIdleTimeoutMs, c.httpKeepAliveTimeoutMs]).toEqual([30_000, 10_000, 30_000, 5_000]);
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '99' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS must be between 100/);
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: 'soon' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS must be an integer/);
  });

  it('the headers timeout never exceeds the request timeout (Node refuses that), and deadlines are checked often', () => {
    const o = timeoutOptions({ httpRequestTimeoutMs: 1000, httpHeadersTimeoutMs: 5000, httpIdleTimeoutMs: 2000, httpKeepAliveTimeoutMs: 500 });
    expect(o.http).toEqual({ requestTimeout: 1000, headersTimeout: 1000, connectionsCheckingInterval: 250 });
    expect(timeoutOptions(loadConfig({})).http.connectionsCheckingInterval).toBe(1000);
  });
});
