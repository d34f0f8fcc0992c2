// A tiny browser stand-in for the dashboard's HTML pages over app.inject: a cookie jar, form
// posts carrying the CSRF token of the last page, and helpers to read the answer.
import type { TestGateway } from '../helpers.js';
import { totp } from '../../src/modules/accounts/totp.js';

export interface WebResponse {
  status: number;
  body: string;
  headers: Record<string, any>;
  location?: string;
}

export class WebClient {
  cookies = new Map<string, string>();
  lastCsrf = '';
  /** The authenticator's secret, once set up (operators always have one): signIn uses it. */
  totpSecret?: string;

  constructor(private readonly gw: TestGateway, private readonly origin?: string, private readonly remoteAddress?: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(headers: Record<string, any>): void {
    const set = headers['set-cookie'];
    for (const c of ([] as string[]).concat(set ?? [])) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      const k = pair.slice(0, i);
      const v = pair.slice(i + 1);
      if (v === '' || /Max-Age=0/.test(c)) this.cookies.delete(k);
      else this.cookies.set(k, v);
    }
  }

  private finish(res: { statusCode: number; body: string; headers: Record<string, any> }): WebResponse {
    this.remember(res.headers);
    const m = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (m) this.lastCsrf = m[1];
    return { status: res.statusCode, body: res.body, headers: res.headers, location: res.headers.location };
  }

  async get(url: string): Promise<WebResponse> {
    const res = await this.gw.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader() }, ...(this.remoteAddress ? { remoteAddress: this.remoteAddress } : {}) });
    return this.finish(res);
  }

  /** Posts a form; `_csrf` defaults to the token of the last page seen. */
  async post(url: string, form: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<WebResponse> {
    const body = new URLSearchParams({ _csrf: this.lastCsrf, ...form }).toString();
    const res = await this.gw.app.inject({
      method: 'POST',
      url,
      payload: body,
      ...(this.remoteAddress ? { remoteAddress: this.remoteAddress } : {}),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader(), ...(this.origin ? { origin: this.origin } : {}), ...headers },
    });
    return this.finish(res);
  }

  async signIn(email: string, password: string, totpSecret = this.totpSecret, now = Date.now()): Promise<WebResponse> {
    await this.get('/dashboard/sign-in');
    return this.post('/dashboard/sign-in', { email, password, ...(totpSecret ? { code: totp(totpSecret, now) } : {}) });
  }
}

/** Invites through the admin API, sets the password through the link; answers a signed-in client. */
export async function userOf(gw: TestGateway, merchantId: number | null, email: string, role = 'owner', password = 'correct horse battery'): Promise<WebClient> {
  const res = merchantId === null
    ? await gw.admin('POST', '/operators/invitations', { email })
    : await gw.admin('POST', `/merchants/${merchantId}/invitations`, { email, role });
  if (res.status !== 201) throw new Error(`invite failed: ${res.status} ${JSON.stringify(res.body)}`);
  const path = new URL(res.body.data.url).pathname;
  const c = new WebClient(gw);
  await c.get(path);
  const set = await c.post(path, { password, password2: password });
  if (set.status !== 200) throw new Error(`set password failed: ${set.status} ${set.body.slice(0, 500)}`);
  const signed = await c.signIn(email, password);
  if (signed.status !== 303) throw new Error(`sign-in failed: ${signed.status} ${signed.body.slice(0, 500)}`);
  if (merchantId === null) await setUpTotp(c);
  return c;
}

/**
 * Sets up an authenticator for the signed-in user (operators must, before anything else). The code
 * of the previous time step confirms it, so a sign-in right after can use the current one.
 */
export async function setUpTotp(c: WebClient): Promise<string> {
  await c.get('/dashboard/account');
  const start = await c.post('/dashboard/account/totp/start');
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(start.body)?.[1];
  if (!secret) throw new Error(`no authenticator set-up: ${start.status} ${start.body.slice(0, 300)}`);
  const done = await c.post('/dashboard/account/totp/confirm', { code: totp(secret, Date.now() - 30_000) });
  if (done.status !== 200) throw new Error(`authenticator set-up failed: ${done.status} ${done.body.slice(0, 300)}`);
  c.totpSecret = secret;
  return secret;
}

export const text = (htmlBody: string) => htmlBody.replace(/<[^>]+>/g, ' ').replace(/&amp;/g, '&').replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/\s+/g, ' ');
