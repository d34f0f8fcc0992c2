// The way out of one bot: the platform's hosts (the configured ones: a stand-in platform for staging
// and tests) and the bot's own outbound proxy (the platform's limits are per address). Both trading
// libraries and the sign-in (steam-session) go this way.
//
// steam-session 1.9.4 has options for a proxy but none for its hosts: api.steampowered.com is a
// constant of its WebApiTransport and login.steampowered.com is written into getWebCookies, and the
// HTTP client it builds sends to the proxy only its https requests. Every request of a LoginSession
// goes through one object, its `_webClient` (the transport and the authentication client hold that
// same object), so when a host is redirected or a proxy is set this file — and only this file —
// replaces that object's `request` with one that rewrites the host and sends with a client of the
// same class built here with the bot's agents for http and https. A library version without that
// field fails the sign-in with a clear error, never a silent request to the real hosts.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import { SocksProxyAgent } from 'socks-proxy-agent';

export const DEFAULT_LOGIN_API_URL = 'https://api.steampowered.com';
export const DEFAULT_LOGIN_URL = 'https://login.steampowered.com';

/** Where a bot's sign-in goes: the authentication Web API and the login host (finalizelogin). */
export interface LoginHosts {
  loginApiUrl: string;
  loginUrl: string;
}

/** The proxy URL schemes a bot may use. */
export const PROXY_SCHEMES = ['http:', 'https:', 'socks4:', 'socks4a:', 'socks5:', 'socks5h:'] as const;

/** A proxy URL as the operator gave it, checked: null when it is fine, else why not. */
export function proxyUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'proxy: not a URL (e.g. http://user:pass@10.0.0.5:3128 or socks5://10.0.0.5:1080)';
  }
  if (!(PROXY_SCHEMES as readonly string[]).includes(url.protocol)) return `proxy: the scheme must be one of ${PROXY_SCHEMES.map((s) => s.slice(0, -1)).join(', ')}`;
  if (!url.hostname) return 'proxy: needs a host';
  if ((url.pathname && url.pathname !== '/') || url.search || url.hash) return 'proxy: only scheme, credentials, host and port (no path, query or fragment)';
  return null;
}

/** What the operator's views show of a proxy: its scheme and host, never its credentials. */
export function proxyLabel(value: string): string {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}`;
  } catch {
    return 'set';
  }
}

/**
 * An agent that opens each connection through an HTTP(S) proxy's CONNECT tunnel, then TLS to the
 * destination when `secure` (credentials of the proxy URL as Proxy-Authorization). The CONNECT is
 * written on the socket itself, not through http.request: nothing else sees the tunnel's set-up.
 */
function connectAgent(proxy: URL, secure: boolean, timeoutMs: number): http.Agent {
  const agent = secure ? new https.Agent({ keepAlive: false }) : new http.Agent({ keepAlive: false });
  const auth = proxy.username ? `proxy-authorization: Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}\r\n` : '';
  const proxyPort = Number(proxy.port || (proxy.protocol === 'https:' ? 443 : 80));
  (agent as unknown as { createConnection: unknown }).createConnection = (options: tls.ConnectionOptions & { host: string; port: number }, done: (err: Error | null, socket?: Duplex) => void) => {
    const target = `${options.host}:${options.port}`;
    const socket: net.Socket = proxy.protocol === 'https:'
      ? tls.connect({ host: proxy.hostname, port: proxyPort, servername: proxy.hostname })
      : net.connect({ host: proxy.hostname, port: proxyPort });
    let finished = false;
    const fail = (err: Error) => {
      if (finished) return;
      finished = true;
      socket.destroy();
      done(new Error(`proxy ${proxy.host}: ${err.message}`));
    };
    socket.setTimeout(timeoutMs, () => fail(new Error(`no CONNECT answer within ${timeoutMs} ms`)));
    socket.once('error', fail);
    socket.once(proxy.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      socket.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n${auth}\r\n`);
    });
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > 16_384) fail(new Error('CONNECT answer too long'));
        return;
      }
      socket.removeListener('data', onData);
      socket.removeListener('error', fail);
      socket.setTimeout(0);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'))?.[1];
      if (status !== '200') return fail(new Error(`CONNECT ${target} answered ${status ?? 'something else than HTTP'}`));
      // The destination speaks only once the client has: nothing follows the proxy's answer yet.
      if (!secure) {
        finished = true;
        return done(null, socket);
      }
      const secured = tls.connect({ socket, servername: options.servername || options.host, rejectUnauthorized: options.rejectUnauthorized !== false });
      secured.once('error', fail);
      secured.once('secureConnect', () => {
        secured.removeListener('error', fail);
        finished = true;
        done(null, secured);
      });
    };
    socket.on('data', onData);
  };
  return agent;
}

/** The bot's agents for http and https destinations through its proxy. */
export function proxyAgents(proxy: string, timeoutMs = 10_000): { http: http.Agent; https: https.Agent } {
  const url = new URL(proxy);
  if (url.protocol.startsWith('socks')) {
    // One SOCKS agent serves both: it does TLS itself for an https destination.
    const agent = new SocksProxyAgent(proxy, { timeout: timeoutMs }) as unknown as https.Agent;
    return { http: agent, https: agent };
  }
  return { http: connectAgent(url, false, timeoutMs), https: connectAgent(url, true, timeoutMs) as https.Agent };
}

/** A URL of the platform's sign-in rewritten to the configured hosts. */
export function rewriteLoginUrl(url: string, hosts: LoginHosts): string {
  return url
    .replace(/^https:\/\/api\.steampowered\.com\//, `${hosts.loginApiUrl}/`)
    .replace(/^https:\/\/login\.steampowered\.com\//, `${hosts.loginUrl}/`);
}

interface RequestingClient {
  request(options: { url: string } & Record<string, unknown>): Promise<unknown>;
}

/**
 * Points a new LoginSession at the configured hosts and the bot's proxy (see the top of this file).
 * Nothing is changed when both are the platform's defaults and there is no proxy.
 */
export function routeLoginSession(session: object, hosts: LoginHosts, proxy?: string): void {
  const redirected = hosts.loginApiUrl !== DEFAULT_LOGIN_API_URL || hosts.loginUrl !== DEFAULT_LOGIN_URL;
  if (!redirected && !proxy) return;
  const client = (session as { _webClient?: RequestingClient })._webClient;
  if (!client || typeof client.request !== 'function') {
    throw new Error('steam-session has no _webClient.request: this version cannot be pointed at the configured hosts or the bot\'s proxy');
  }
  const HttpClient = client.constructor as new (options: { httpAgent?: http.Agent; httpsAgent?: https.Agent }) => RequestingClient & { userAgent?: string };
  const agents = proxy ? proxyAgents(proxy) : undefined;
  const routed = new HttpClient(agents ? { httpAgent: agents.http, httpsAgent: agents.https } : {});
  client.request = (options) => {
    // The authentication client sets the web user agent on the session's client after it is built.
    routed.userAgent = (client as { userAgent?: string }).userAgent;
    return routed.request({ ...options, url: rewriteLoginUrl(String(options.url), hosts) });
  };
}
