// A stand-in for the platform's sign-in, beside the stand-in trading platform (fake-steam.ts): the
// authentication Web API as steam-session's WebApiTransport calls it (protobuf in, protobuf out,
// X-eresult), the login host's /jwt/finalizelogin and the community's /login/settoken transfer that
// sets the web session cookie. The gateway reaches it through STEAM_LOGIN_API_URL and
// STEAM_LOGIN_URL; the web sessions it hands out are the trading stand-in's (its access tokens).
// It checks what the platform checks: the password (RSA-encrypted by the client), the Steam Guard
// code from the bot's shared secret, and the refresh token on renewal and finalizelogin.
import http from 'node:http';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import SteamTotp from 'steam-totp';
import type { FakeSteam } from './fake-steam.js';

// The library's own message definitions: the stand-in speaks exactly what the client sends and reads.
const { getProtoForMethod } = createRequire(import.meta.url)('steam-session/dist/protobufs.js') as {
  getProtoForMethod(iface: string, method: string): { request: Proto; response: Proto };
};
interface Proto {
  decode(b: Uint8Array): unknown;
  encode(o: object): { finish(): Uint8Array };
  toObject(m: unknown, o: object): Record<string, any>;
}

const b64url = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
/** A token shaped as the platform's (a JWT steam-session reads: sub, aud, exp); not signed. */
const jwt = (claims: object) => `${b64url({ typ: 'JWT', alg: 'EdDSA' })}.${b64url(claims)}.${crypto.randomBytes(16).toString('base64url')}`;

export class FakeSteamLogin {
  url = '';
  /** Calls per path (the Web API's method, the login host's paths). */
  calls = new Map<string, number>();
  /** The refresh tokens it issued that still work (a renewal retires the old one), by bot steam id. */
  refreshTokens = new Map<string, string>();
  /** How long its refresh tokens last (short enough here that the gateway renews them). */
  refreshTokenDays = 10;
  private rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 });
  private pending = new Map<string, { steamId: string; codeOk: boolean }>(); // client id → login attempt
  private server = http.createServer((req, res) => void this.handle(req, res));

  constructor(private readonly steam: FakeSteam) {}

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
  get env() {
    return { STEAM_LOGIN_API_URL: `${this.url}/api`, STEAM_LOGIN_URL: `${this.url}/login` };
  }
  count(path: string): number {
    return this.calls.get(path) ?? 0;
  }

  private issueRefreshToken(steamId: string): string {
    const token = jwt({ iss: 'steam', sub: steamId, aud: ['web', 'renew', 'derive'], exp: Math.floor(Date.now() / 1000) + this.refreshTokenDays * 86400 });
    this.refreshTokens.set(steamId, token);
    return token;
  }
  private steamIdOfRefreshToken(token: string): string | undefined {
    return [...this.refreshTokens].find(([, t]) => t === token)?.[0];
  }
  /** RSA without padding support in node's privateDecrypt: m = c^d mod n, then PKCS#1 v1.5 unpadded. */
  private decryptPassword(b64: string): string {
    const jwk = this.rsa.privateKey.export({ format: 'jwk' });
    const big = (s: string) => BigInt(`0x${Buffer.from(s, 'base64url').toString('hex')}`);
    const [n, d] = [big(jwk.n!), big(jwk.d!)];
    let [r, b, e] = [1n, BigInt(`0x${Buffer.from(b64, 'base64').toString('hex')}`) % n, d];
    while (e > 0n) {
      if (e & 1n) r = (r * b) % n;
      b = (b * b) % n;
      e >>= 1n;
    }
    const bytes = Buffer.from(r.toString(16).padStart(256, '0'), 'hex');
    return bytes.subarray(bytes.indexOf(0, 2) + 1).toString('utf8');
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url!, this.url);
    const path = url.pathname;
    this.calls.set(path, (this.calls.get(path) ?? 0) + 1);
    // multipart/form-data fields, as steam-session's HTTP client sends them
    const field = (name: string) => new RegExp(`name="${name}"\\r\\n\\r\\n([^\\r]*)\\r\\n`).exec(body)?.[1] ?? url.searchParams.get(name) ?? undefined;
    try {
      const api = /^\/api\/I(\w+)Service\/(\w+)\/v1\/$/.exec(path);
      if (api) return this.api(api[1]!, api[2]!, Buffer.from(field('input_protobuf_encoded') ?? '', 'base64'), res);
      if (path === '/login/jwt/finalizelogin' && req.method === 'POST') {
        const steamId = this.steamIdOfRefreshToken(field('nonce') ?? '');
        if (!steamId) return json(res, { error: 8 }); // InvalidParam: a refresh token it does not know (or retired)
        const auth = crypto.randomBytes(8).toString('hex');
        return json(res, { steamID: steamId, transfer_info: [{ url: `${this.url}/community/login/settoken`, params: { nonce: field('nonce'), auth } }] });
      }
      if (path === '/community/login/settoken' && req.method === 'POST') {
        const steamId = field('steamID') ?? '';
        const bot = this.steam.bots.get(steamId);
        if (!bot || this.steamIdOfRefreshToken(field('nonce') ?? '') !== steamId) return json(res, { result: 8 });
        // The web session is the trading stand-in's: an access token it knows for this bot.
        const { token } = this.steam.webCookies(bot);
        res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': [`steamLoginSecure=${steamId}%7C%7C${token}; Path=/; Secure; HttpOnly; SameSite=None; Domain=steamcommunity.com`] });
        return void res.end(JSON.stringify({ result: 1 }));
      }
      res.writeHead(404).end('not found');
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  }

  private api(iface: string, method: string, input: Buffer, res: http.ServerResponse): void {
    const { request, response } = getProtoForMethod(iface, method);
    const reply = (eresult: number, out: object = {}) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-eresult': String(eresult) });
      res.end(Buffer.from(response.encode(out).finish()));
    };
    const q = request.toObject(request.decode(input), { longs: String, bytes: String });
    const botNamed = (name: string) => [...this.steam.bots.values()].find((b) => b.accountName === name);
    switch (method) {
      case 'GetPasswordRSAPublicKey': {
        const jwk = this.rsa.publicKey.export({ format: 'jwk' });
        const hex = (s: string) => Buffer.from(s, 'base64url').toString('hex');
        return reply(1, { publickey_mod: hex(jwk.n!), publickey_exp: hex(jwk.e!), timestamp: '1' });
      }
      case 'BeginAuthSessionViaCredentials': {
        const bot = botNamed(q.account_name);
        if (!bot || this.decryptPassword(q.encrypted_password) !== bot.password) return reply(5); // InvalidPassword
        const clientId = String(BigInt(`0x${crypto.randomBytes(7).toString('hex')}`));
        this.pending.set(clientId, { steamId: bot.steamId, codeOk: false });
        return reply(1, { client_id: clientId, request_id: crypto.randomBytes(16), interval: 0.1, allowed_confirmations: [{ confirmation_type: 3 }], steamid: bot.steamId });
      }
      case 'UpdateAuthSessionWithSteamGuardCode': {
        const attempt = this.pending.get(String(q.client_id));
        const bot = attempt && this.steam.bots.get(attempt.steamId);
        if (!attempt || !bot || q.code !== SteamTotp.generateAuthCode(bot.sharedSecret)) return reply(88); // TwoFactorCodeMismatch
        attempt.codeOk = true;
        return reply(1);
      }
      case 'PollAuthSessionStatus': {
        const attempt = this.pending.get(String(q.client_id));
        if (!attempt?.codeOk) return reply(1, {});
        this.pending.delete(String(q.client_id));
        const bot = this.steam.bots.get(attempt.steamId)!;
        return reply(1, { refresh_token: this.issueRefreshToken(bot.steamId), access_token: jwt({ sub: bot.steamId, aud: ['web'], exp: Math.floor(Date.now() / 1000) + 86400 }), account_name: bot.accountName });
      }
      case 'GenerateAccessTokenForApp': {
        const steamId = this.steamIdOfRefreshToken(q.refresh_token);
        if (!steamId || steamId !== q.steamid) return reply(15); // AccessDenied
        const access = jwt({ sub: steamId, aud: ['web'], exp: Math.floor(Date.now() / 1000) + 86400 });
        // renewal_type 1 (Allow): a new refresh token; the old one stops working.
        return reply(1, q.renewal_type === 1 ? { access_token: access, refresh_token: this.issueRefreshToken(steamId) } : { access_token: access });
      }
      default:
        return reply(2);
    }
  }
}

function json(res: http.ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A local HTTP proxy (CONNECT tunnels only, as the bots' agents use it) that counts the tunnels it opened, by destination. */
export async function startCountingProxy(): Promise<{ url: string; tunnels: Map<string, number>; total(): number; stop(): Promise<void> }> {
  const tunnels = new Map<string, number>();
  const { default: net } = await import('node:net');
  const server = http.createServer((_req, res) => res.writeHead(405).end('CONNECT only'));
  server.on('connect', (req, client: import('node:net').Socket, head: Buffer) => {
    const target = req.url ?? '';
    tunnels.set(target, (tunnels.get(target) ?? 0) + 1);
    const [host, port] = target.split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    total: () => [...tunnels.values()].reduce((a, b) => a + b, 0),
    stop: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
