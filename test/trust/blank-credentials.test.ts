// Every door of the gateway refuses a blank credential and takes a credential only as the exact bytes
// sent: nothing trimmed, folded or normalised. Each door is tried with an empty value, ASCII space and
// tab, the no-break space as one Latin-1 byte (A0) and as UTF-8 (C2 A0), the Unicode spaces U+2000
// to U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF and the zero-width space U+200B: alone,
// and around a valid credential. Over a raw socket (what fetch refuses to send: bytes as they are)
// and through inject (JS strings reach the hooks untouched, as from a front that decodes UTF-8).
// HTTP itself drops spaces and tabs at the very ends of a header line (RFC 9110 5.5), so on the
// socket those two are put where they stay part of the value (after `Bearer `, before `; `).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers.js';
import { rawConnect, parseResponse } from './raw-http.js';
import { userOf } from '../dashboard/web-client.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { checkBearerToken } from '../../src/config-parse.js';
import { credentialMatches, isBlankCredential, randomSecret } from '../../src/domain/secrets.js';

interface Blank {
  name: string;
  /** The bytes put on the wire. */
  bytes: Buffer;
  /** The same character as a JS string (inject). */
  text: string;
}

const unicode = (cp: number): Blank => {
  const ch = String.fromCodePoint(cp);
  return { name: `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`, bytes: Buffer.from(ch, 'utf8'), text: ch };
};

const BLANKS: Blank[] = [
  { name: 'empty', bytes: Buffer.alloc(0), text: '' },
  { name: 'ASCII space', bytes: Buffer.from(' '), text: ' ' },
  { name: 'tab', bytes: Buffer.from('\t'), text: '\t' },
  { name: 'NBSP as Latin-1 (A0)', bytes: Buffer.from([0xa0]), text: '\u00a0' },
  { name: 'NBSP as UTF-8 (C2 A0)', bytes: Buffer.from([0xc2, 0xa0]), text: '\u00a0' },
  ...Array.from({ length: 11 }, (_, i) => unicode(0x2000 + i)),
  ...[0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff, 0x200b].map(unicode),
];

/** SP and HTAB at the end of a header line are not part of the value (HTTP drops them): only inside it. */
const stripsAtLineEnd = (b: Blank) => b.text === ' ' || b.text === '\t';

interface Answer {
  status: number;
  body: string;
}

/** One request over a fresh connection, the header values written as the bytes given. */
async function rawRequest(url: string, method: string, target: Buffer | string, headers: [string, Buffer | string][], body?: string): Promise<Answer> {
  const c = await rawConnect(url);
  const lines: Buffer[] = [Buffer.from(`${method} `), Buffer.from(target as string, typeof target === 'string' ? 'latin1' : undefined), Buffer.from(' HTTP/1.1\r\nHost: gateway.test\r\nConnection: close\r\n')];
  for (const [name, value] of headers) lines.push(Buffer.from(`${name}: `), typeof value === 'string' ? Buffer.from(value, 'latin1') : value, Buffer.from('\r\n'));
  if (body !== undefined) lines.push(Buffer.from(`Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`));
  lines.push(Buffer.from('\r\n'));
  if (body !== undefined) lines.push(Buffer.from(body));
  c.socket.write(Buffer.concat(lines));
  const { text } = await c.closed(30_000);
  const r = parseResponse(text);
  return { status: r.status, body: r.body };
}

const cat = (...parts: (Buffer | string)[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : p)));

/**
 * The presented values of a door: each blank alone, before and after the valid credential. `whole`:
 * the credential is the header's whole value, so SP and HTAB before it are HTTP's too (inject tries them).
 */
function wireVariants(valid: string, whole = false): { label: string; bytes: Buffer }[] {
  const out: { label: string; bytes: Buffer }[] = [];
  for (const b of BLANKS) {
    out.push({ label: `${b.name} alone`, bytes: b.bytes });
    if (b.bytes.length === 0 || stripsAtLineEnd(b)) continue;
    out.push({ label: `${b.name} before`, bytes: cat(b.bytes, valid) }, { label: `${b.name} after`, bytes: cat(valid, b.bytes) });
  }
  for (const b of BLANKS.filter(stripsAtLineEnd)) if (!whole) out.push({ label: `${b.name} before`, bytes: cat(b.bytes, valid) });
  return out;
}
function textVariants(valid: string): { label: string; text: string }[] {
  const out: { label: string; text: string }[] = [];
  for (const b of BLANKS) {
    out.push({ label: `${b.name} alone`, text: b.text });
    if (b.text === '') continue;
    out.push({ label: `${b.name} before`, text: b.text + valid }, { label: `${b.name} after`, text: valid + b.text }, { label: `${b.name} around`, text: b.text + valid + b.text });
  }
  return out;
}

const OPERATOR_CALLS: { method: string; path: string; body?: string }[] = [
  { method: 'GET', path: '/api/admin/merchants' },
  { method: 'POST', path: '/api/admin/merchants', body: JSON.stringify({ name: 'stranger' }) },
  { method: 'POST', path: '/api/admin/operators/invitations', body: JSON.stringify({ email: 'stranger@example.com' }) },
];

function priceBookDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blank-credentials-book-'));
  fs.writeFileSync(path.join(dir, 'csgo.json'), JSON.stringify([{ market_hash_name: 'Blank Credentials Test Item', price: 1 }]));
  return dir;
}

describe('PLATFORM=steam without ADMIN_TOKEN: no request reaches an operator operation', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(
      { PLATFORM: 'steam', BOT_SECRETS_KEY: crypto.randomBytes(32).toString('base64'), PRICE_BOOK: priceBookDir(), SANDBOX_CATALOGUE_SIZE: '0', ADMIN_TOKEN: '' },
      { worker: false },
    );
  }, 120_000);
  afterAll(async () => gw?.stop());

  it('has no operator token', () => {
    expect(gw.ctx.config.adminToken).toBeUndefined();
    expect(gw.ctx.config.metricsToken).toBeUndefined();
  });

  it('over a raw socket: Bearer followed by any blank, or no Bearer at all, is 401 and changes nothing', async () => {
    const headers: { label: string; value: Buffer }[] = [
      ...BLANKS.map((b) => ({ label: `Bearer + ${b.name}`, value: cat('Bearer ', b.bytes) })),
      ...BLANKS.map((b) => ({ label: `bearer + ${b.name} twice`, value: cat('bearer ', b.bytes, b.bytes) })),
      ...BLANKS.map((b) => ({ label: `${b.name} without a scheme`, value: b.bytes })),
      { label: 'Bearer and a space only', value: Buffer.from('Bearer  ') },
    ];
    const opened: string[] = [];
    for (const h of headers) {
      for (const call of OPERATOR_CALLS) {
        const r = await rawRequest(gw.url, call.method, call.path, [['Authorization', h.value]], call.body);
        if (r.status !== 401) opened.push(`${call.method} ${call.path} with ${h.label}: ${r.status} ${r.body.slice(0, 120)}`);
      }
      const metrics = await rawRequest(gw.url, 'GET', '/metrics', [['Authorization', h.value]]);
      if (metrics.status !== 401) opened.push(`/metrics with ${h.label}: ${metrics.status}`);
    }
    expect(opened).toEqual([]);
    expect(await gw.ctx.db.selectFrom('merchants').select('id').execute()).toEqual([]);
    expect((await sql<{ id: number }>`select id from dashboard_users`.execute(gw.ctx.db)).rows).toEqual([]);
  });

  it('through inject: every blank as a JS string (what a front decoding UTF-8 hands on) is 401 too', async () => {
    const opened: string[] = [];
    for (const b of BLANKS) {
      for (const value of [`Bearer ${b.text}`, `Bearer ${b.text}${b.text}`, b.text]) {
        for (const call of OPERATOR_CALLS) {
          const res = await gw.app.inject({
            method: call.method as 'GET' | 'POST',
            url: call.path,
            headers: { authorization: value, ...(call.body ? { 'content-type': 'application/json' } : {}) },
            payload: call.body,
          });
          if (res.statusCode !== 401) opened.push(`${call.method} ${call.path} with ${JSON.stringify(value)}: ${res.statusCode}`);
        }
      }
    }
    expect(opened).toEqual([]);
    // Without any header as well: the operator API is closed, not merely missing a header.
    const none = await gw.app.inject({ method: 'GET', url: '/api/admin/merchants' });
    expect(none.statusCode).toBe(401);
    expect(none.json().message).toMatch(/ADMIN_TOKEN/);
    expect(await gw.ctx.db.selectFrom('merchants').select('id').execute()).toEqual([]);
    expect((await sql<{ id: number }>`select id from dashboard_users`.execute(gw.ctx.db)).rows).toEqual([]);
  });
});

describe('with credentials configured: only the exact bytes open a door', () => {
  let gw: TestGateway;
  let m: { id: number; api_key: string };
  beforeAll(async () => {
    gw = await startTestGateway({}, { worker: false });
    m = await gw.createMerchant();
  }, 120_000);
  afterAll(async () => gw?.stop());

  it('the operator API: the token with any blank before or after it is 401; the token itself is 200', async () => {
    const opened: string[] = [];
    for (const v of wireVariants(ADMIN_TOKEN)) {
      const r = await rawRequest(gw.url, 'GET', '/api/admin/merchants', [['Authorization', cat('Bearer ', v.bytes)]]);
      if (r.status !== 401) opened.push(`raw ${v.label}: ${r.status}`);
    }
    for (const v of textVariants(ADMIN_TOKEN)) {
      const res = await gw.app.inject({ method: 'GET', url: '/api/admin/merchants', headers: { authorization: `Bearer ${v.text}` } });
      if (res.statusCode !== 401) opened.push(`inject ${v.label}: ${res.statusCode}`);
    }
    // A tab instead of the space, or the token in another case, is another credential.
    for (const value of [`Bearer\t${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN.toUpperCase()}`]) {
      const r = await rawRequest(gw.url, 'GET', '/api/admin/merchants', [['Authorization', value]]);
      if (r.status !== 401) opened.push(`raw ${JSON.stringify(value)}: ${r.status}`);
    }
    expect(opened).toEqual([]);
    expect((await rawRequest(gw.url, 'GET', '/api/admin/merchants', [['Authorization', `Bearer ${ADMIN_TOKEN}`]])).status).toBe(200);
    expect((await rawRequest(gw.url, 'GET', '/api/admin/merchants', [['Authorization', `bearer ${ADMIN_TOKEN}`]])).status).toBe(200); // the scheme's case is free
  });

  it('/metrics: the same', async () => {
    const opened: string[] = [];
    for (const v of wireVariants(ADMIN_TOKEN)) {
      const r = await rawRequest(gw.url, 'GET', '/metrics', [['Authorization', cat('Bearer ', v.bytes)]]);
      if (r.status !== 401) opened.push(`raw ${v.label}: ${r.status}`);
    }
    for (const v of textVariants(ADMIN_TOKEN)) {
      const res = await gw.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${v.text}` } });
      if (res.statusCode !== 401) opened.push(`inject ${v.label}: ${res.statusCode}`);
    }
    expect(opened).toEqual([]);
    expect((await rawRequest(gw.url, 'GET', '/metrics', [['Authorization', `Bearer ${ADMIN_TOKEN}`]])).status).toBe(200);
  });

  it('X-Api-Key: the key with any blank before or after it, or a blank alone, is 401; the key itself is 200', async () => {
    const opened: string[] = [];
    for (const v of wireVariants(m.api_key, true)) {
      const r = await rawRequest(gw.url, 'GET', '/api/v1/merchant/balance', [['X-Api-Key', v.bytes]]);
      if (r.status !== 401) opened.push(`raw ${v.label}: ${r.status}`);
    }
    for (const v of textVariants(m.api_key)) {
      const res = await gw.app.inject({ method: 'GET', url: '/api/v1/merchant/balance', headers: { 'x-api-key': v.text } });
      if (res.statusCode !== 401) opened.push(`inject ${v.label}: ${res.statusCode}`);
    }
    expect(opened).toEqual([]);
    expect((await rawRequest(gw.url, 'GET', '/api/v1/merchant/balance', [['X-Api-Key', m.api_key]])).status).toBe(200);
  });

  it('hosted page tokens (/deposit/<token> and its API): the token with any blank around it, or a blank alone, is not found', async () => {
    const created = await gw.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: `blank-${Date.now()}` });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const token = new URL(created.body.data.url).pathname.split('/').pop()!;
    const opened: string[] = [];
    for (const b of BLANKS) {
      const enc = b.bytes.length ? [...b.bytes].map((x) => `%${x.toString(16).toUpperCase().padStart(2, '0')}`).join('') : '';
      for (const [label, t] of [['alone', enc], ['before', enc + token], ['after', token + enc]] as const) {
        if (b.bytes.length === 0 && label !== 'alone') continue;
        for (const url of [`/api/v1/hosted/${t}`, `/api/v1/hosted/${t}/status`, `/deposit/${t}`]) {
          const res = await gw.app.inject({ method: 'GET', url });
          if (res.statusCode < 400) opened.push(`${url} (${b.name} ${label}): ${res.statusCode}`);
        }
      }
      // The raw bytes in the request target, where HTTP lets them through at all.
      if (b.bytes.length && !stripsAtLineEnd(b)) {
        const r = await rawRequest(gw.url, 'GET', cat(`/api/v1/hosted/${token}`, b.bytes), []);
        if (r.status < 400) opened.push(`raw path (${b.name} after): ${r.status}`);
      }
    }
    expect(opened).toEqual([]);
    expect((await gw.app.inject({ method: 'GET', url: `/api/v1/hosted/${token}` })).statusCode).toBe(200);
    expect((await gw.app.inject({ method: 'GET', url: `/deposit/${token}` })).statusCode).toBe(200);
  });

  it('the dashboard session cookie: the session id with any blank around it, or a blank alone, is signed out; the id itself is signed in', async () => {
    const c = await userOf(gw, m.id, `blank-${crypto.randomBytes(4).toString('hex')}@example.com`);
    const session = c.cookies.get('sgw_session')!;
    expect(session).toMatch(/^[\w-]{20,}$/);
    const signedIn = (r: Answer) => r.status === 200;
    const opened: string[] = [];
    for (const v of wireVariants(session)) {
      // Followed by another cookie, so the bytes stay inside the header's value.
      const r = await rawRequest(gw.url, 'GET', '/dashboard/account', [['Cookie', cat('sgw_session=', v.bytes, '; theme=dark')]]);
      if (signedIn(r)) opened.push(`raw ${v.label}: ${r.status}`);
      const last = await rawRequest(gw.url, 'GET', '/dashboard/account', [['Cookie', cat('theme=dark; sgw_session=', v.bytes)]]);
      if (signedIn(last)) opened.push(`raw last ${v.label}: ${last.status}`);
    }
    for (const b of BLANKS.filter(stripsAtLineEnd)) {
      const r = await rawRequest(gw.url, 'GET', '/dashboard/account', [['Cookie', cat('sgw_session=', session, b.bytes, '; theme=dark')]]);
      if (signedIn(r)) opened.push(`raw ${b.name} after, before the next cookie: ${r.status}`);
    }
    for (const v of textVariants(session)) {
      const res = await gw.app.inject({ method: 'GET', url: '/dashboard/account', headers: { cookie: `sgw_session=${v.text}` } });
      if (res.statusCode === 200) opened.push(`inject ${v.label}: ${res.statusCode}`);
    }
    // Percent-encoding is another spelling of the bytes, not the same session.
    const spelled = `%${session.charCodeAt(0).toString(16).toUpperCase()}${session.slice(1)}`;
    const res = await gw.app.inject({ method: 'GET', url: '/dashboard/account', headers: { cookie: `sgw_session=${spelled}` } });
    if (res.statusCode === 200) opened.push('percent-encoded first character');
    expect(opened).toEqual([]);
    expect(signedIn(await rawRequest(gw.url, 'GET', '/dashboard/account', [['Cookie', `sgw_session=${session}; theme=dark`]]))).toBe(true);
    expect(signedIn(await rawRequest(gw.url, 'GET', '/dashboard/account', [['Cookie', `theme=dark; sgw_session=${session}`]]))).toBe(true);
  });

  it('CSRF tokens: the token with any blank around it, or a blank alone, is 403; the token itself is taken', async () => {
    const c = await userOf(gw, m.id, `csrf-${crypto.randomBytes(4).toString('hex')}@example.com`);
    await c.get('/dashboard/account');
    const csrf = c.lastCsrf;
    expect(csrf.length).toBeGreaterThan(20);
    const cookie = `sgw_session=${c.cookies.get('sgw_session')}`;
    const opened: string[] = [];
    for (const v of textVariants(csrf)) {
      const form = await gw.app.inject({
        method: 'POST',
        url: '/dashboard/account/totp/start',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        payload: new URLSearchParams({ _csrf: v.text }).toString(),
      });
      if (form.statusCode !== 403) opened.push(`form ${v.label}: ${form.statusCode}`);
      const header = await gw.app.inject({ method: 'POST', url: '/dashboard/account/totp/start', headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': v.text }, payload: '{}' });
      if (header.statusCode !== 403) opened.push(`header ${v.label}: ${header.statusCode}`);
    }
    for (const v of wireVariants(csrf, true)) {
      const r = await rawRequest(gw.url, 'POST', '/dashboard/account/totp/start', [['Cookie', cookie], ['X-Csrf-Token', v.bytes]], '{}');
      if (r.status !== 403) opened.push(`raw header ${v.label}: ${r.status}`);
    }
    expect(opened).toEqual([]);
    expect((await rawRequest(gw.url, 'POST', '/dashboard/account/totp/start', [['Cookie', cookie], ['X-Csrf-Token', csrf]], '{}')).status).toBe(200);
  });

  it('the pre-sign-in cookie: the signed value with a no-break space after it is not the gateway\'s', async () => {
    const page = await gw.app.inject({ method: 'GET', url: '/dashboard/sign-in' });
    const pre = ([] as string[]).concat(page.headers['set-cookie'] ?? []).map((x) => x.split(';')[0]!).find((x) => x.startsWith('sgw_pre='))!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const form = new URLSearchParams({ _csrf: csrf, email: 'nobody@example.com', password: 'wrong password here' }).toString();
    const send = async (cookie: Buffer) => {
      const c = await rawConnect(gw.url);
      c.socket.write(cat(`POST /dashboard/sign-in HTTP/1.1\r\nHost: gateway.test\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\nCookie: `, cookie, `\r\n\r\n${form}`));
      return parseResponse((await c.closed(30_000)).text).status;
    };
    expect(await send(cat(pre, Buffer.from([0xa0]), '; theme=dark'))).toBe(403);
    expect(await send(cat(pre, Buffer.from([0xa0])))).toBe(403);
    // The pair as issued gets past the CSRF check (to a refused sign-in: the user does not exist).
    const ok = await send(cat(pre, '; theme=dark'));
    expect(ok).not.toBe(403);
    expect(ok).toBeLessThan(500);
  });
});

describe('bearer token settings', () => {
  it('ADMIN_TOKEN and METRICS_TOKEN shorter than 32 characters, or with whitespace or non-ASCII, refuse the start naming the setting', () => {
    for (const name of ['ADMIN_TOKEN', 'METRICS_TOKEN']) {
      for (const bad of ['x'.repeat(31), 'short', ' '.repeat(40), `${'x'.repeat(32)} `, `\u00a0${'x'.repeat(32)}`, `${'x'.repeat(16)} ${'x'.repeat(16)}`, `${'x'.repeat(32)}é`]) {
        let error: unknown;
        try {
          loadConfig({ [name]: bad });
        } catch (err) {
          error = err;
        }
        expect(error, `${name}=${JSON.stringify(bad)}`).toBeInstanceOf(ConfigError);
        expect((error as Error).message).toContain(name);
        if (bad.trim() !== '') expect((error as Error).message).not.toContain(bad.trim()); // a secret is never echoed
      }
      expect(loadConfig({ [name]: 'x'.repeat(32) })[name === 'ADMIN_TOKEN' ? 'adminToken' : 'metricsToken']).toBe('x'.repeat(32));
      expect(loadConfig({ [name]: '' })[name === 'ADMIN_TOKEN' ? 'adminToken' : 'metricsToken']).toBeUndefined();
    }
    expect(() => loadConfig({ ADMIN_TOKEN: 'x'.repeat(31) })).toThrow(/ADMIN_TOKEN must be at least 32 characters, got 31/);
  });

  it("the tests' token and the sandbox's generated token meet the rule", () => {
    expect(checkBearerToken(ADMIN_TOKEN, 'ADMIN_TOKEN')).toBe(ADMIN_TOKEN);
    for (let i = 0; i < 20; i++) {
      const t = randomSecret('adm_');
      expect(checkBearerToken(t, 'generated')).toBe(t);
    }
  });

  it('a sandbox start keeps its generated token; an emptied token file refuses the start instead of opening the operator API', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'blank-credentials-data-'));
    const first = await startTestGateway({ ADMIN_TOKEN: '', DATA_DIR: dataDir }, { worker: false, listen: false });
    let generated: string | undefined;
    try {
      generated = first.ctx.config.adminToken;
      expect(generated && checkBearerToken(generated, 'generated')).toBe(generated);
      expect(fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8')).toBe(generated);
    } finally {
      await first.stop();
    }
    for (const content of ['', '\u00a0\n', ' \t\n', 'short\n']) {
      fs.writeFileSync(path.join(dataDir, 'admin-token'), content);
      await expect(startTestGateway({ ADMIN_TOKEN: '', DATA_DIR: dataDir }, { worker: false, listen: false })).rejects.toThrow(/admin-token must be .*delete the file/);
    }
  }, 120_000);

  it('credentialMatches: never for a blank side, only for the same characters', () => {
    for (const b of BLANKS) {
      expect(isBlankCredential(b.text)).toBe(true);
      expect(credentialMatches(b.text, b.text)).toBe(false);
      expect(credentialMatches(b.text, '')).toBe(false);
      expect(credentialMatches('', b.text)).toBe(false);
      if (b.text) expect(credentialMatches(`${ADMIN_TOKEN}${b.text}`, ADMIN_TOKEN)).toBe(false);
    }
    expect(credentialMatches(undefined, undefined)).toBe(false);
    expect(credentialMatches(ADMIN_TOKEN, ADMIN_TOKEN)).toBe(true);
    expect(credentialMatches(ADMIN_TOKEN.toUpperCase(), ADMIN_TOKEN)).toBe(false);
    expect(credentialMatches('\u00e9'.repeat(32), 'e\u0301'.repeat(32))).toBe(false); // no Unicode normalisation
  });
});
