// A bot's proxy by scheme: a SOCKS5 proxy carries the whole sign-in (steam-session against the
// local sign-in stand-in), an HTTP proxy gets the URL's credentials as Proxy-Authorization, and the
// URLs the operator may give are checked (what is refused says why).
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutNock } from './without-nock.js';
import { FakeSteam } from './fake-steam.js';
import { FakeSteamLogin } from './fake-steam-login.js';
import { steamSessionProvider } from '../../src/platform/steam/session.js';
import { proxyAgents, proxyUrlProblem } from '../../src/platform/steam/bot-route.js';
import http from 'node:http';

/** A minimal SOCKS5 server (no authentication, CONNECT by IPv4 or name) counting its connections. */
async function startSocks5(): Promise<{ url: string; connects: string[]; stop(): Promise<void> }> {
  const connects: string[] = [];
  const server = net.createServer((client) => {
    client.once('data', () => {
      client.write(Buffer.from([5, 0])); // version 5, no authentication
      client.once('data', (req) => {
        let host: string;
        let at: number;
        if (req[3] === 1) {
          host = [...req.subarray(4, 8)].join('.');
          at = 8;
        } else {
          const len = req[4]!;
          host = req.subarray(5, 5 + len).toString();
          at = 5 + len;
        }
        const port = req.readUInt16BE(at);
        connects.push(`${host}:${port}`);
        const upstream = net.connect(port, host, () => {
          client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `socks5://127.0.0.1:${(server.address() as AddressInfo).port}`, connects, stop: () => new Promise((r) => server.close(() => r())) };
}

let fake: FakeSteam;
let login: FakeSteamLogin;
let nockBack: () => void;
beforeAll(async () => {
  nockBack = withoutNock();
  fake = await new FakeSteam().start();
  login = await new FakeSteamLogin(fake).start();
});
afterAll(async () => {
  nockBack?.();
  await login?.stop();
  await fake?.stop();
});

describe('a bot\'s proxy', () => {
  it('SOCKS5: the whole sign-in (credentials, finalizelogin, transfer) goes through it', async () => {
    const socks = await startSocks5();
    try {
      const bot = fake.addBot('socks_bot', 923_456);
      const sessions = steamSessionProvider(5000, { loginApiUrl: `${login.url}/api`, loginUrl: `${login.url}/login` });
      const session = await sessions.signIn({ accountName: bot.accountName, password: bot.password, sharedSecret: bot.sharedSecret, proxy: socks.url });
      expect(session.cookies.some((c) => c.startsWith(`steamLoginSecure=${bot.steamId}`))).toBe(true);
      expect(session.refreshToken).toBe(login.refreshTokens.get(bot.steamId));
      // Every connection of the sign-in was one the SOCKS server opened to the stand-in.
      expect(socks.connects.length).toBeGreaterThanOrEqual(1);
      expect(new Set(socks.connects)).toEqual(new Set([`127.0.0.1:${new URL(login.url).port}`]));
    } finally {
      await socks.stop();
    }
  });

  it('HTTP: its CONNECT carries the URL\'s credentials as Proxy-Authorization', async () => {
    const seen: (string | undefined)[] = [];
    const proxy = http.createServer();
    proxy.on('connect', (req, client: net.Socket) => {
      seen.push(req.headers['proxy-authorization']);
      const [host, port] = req.url!.split(':');
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(client);
        client.pipe(upstream);
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    try {
      const agents = proxyAgents(`http://op%40corp:p%3Ass@127.0.0.1:${(proxy.address() as AddressInfo).port}`);
      const status = await new Promise<number>((resolve, reject) => {
        http.get(`${fake.url}/community/nothing`, { agent: agents.http }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        }).on('error', reject);
      });
      expect(status).toBe(404); // the stand-in answered, through the tunnel
      expect(seen).toEqual([`Basic ${Buffer.from('op@corp:p:ss').toString('base64')}`]);
    } finally {
      proxy.closeAllConnections();
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });

  it('the URLs an operator may give', () => {
    for (const ok of ['http://10.0.0.5:3128', 'https://u:p@proxy.example:443', 'socks5://10.0.0.5:1080', 'socks5h://u:p@10.0.0.5:1080', 'socks4://10.0.0.5:1080']) expect(proxyUrlProblem(ok)).toBeNull();
    expect(proxyUrlProblem('ftp://10.0.0.5')).toMatch(/scheme/);
    expect(proxyUrlProblem('10.0.0.5:3128')).toMatch(/scheme|not a URL/);
    expect(proxyUrlProblem('http://10.0.0.5:3128/x')).toMatch(/no path/);
    expect(proxyUrlProblem('http://10.0.0.5:3128?a=1')).toMatch(/no path/);
  });
});
