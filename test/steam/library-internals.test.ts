// The steam libraries' internals the driver reaches (src/platform/steam/library-internals.ts) are
// still there in the installed versions: an upgrade that drops one fails here, not on a live bot.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import SteamCommunity from 'steamcommunity';
import TradeOfferManager from 'steam-tradeoffer-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutNock } from './without-nock.js';
import {
  communityCookies, communityRequest, managerAccessToken, managerCanPoll, neverHoldBackSentOffers, pollNow, rewriteCommunityRequests, sendCommunityThrough,
} from '../../src/platform/steam/library-internals.js';

describe('steam library internals', () => {
  let server: http.Server;
  let base = '';
  const seen: { url?: string; cookie?: string; agentUsed: boolean }[] = [];

  let nockBack: () => void;
  beforeAll(async () => {
    nockBack = withoutNock();
    server = http.createServer((req, res) => {
      seen.push({ url: req.url, cookie: req.headers.cookie, agentUsed: req.headers['x-through'] === 'agent' });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ response: { ok: true } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    nockBack?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('steamcommunity: its requests are rewritten, carry the jar\'s cookies and go through the chosen agent', async () => {
    const community = new SteamCommunity();
    community.setCookies(['steamLoginSecure=76561198000000000%7C%7Ctoken', 'sessionid=abc']);
    // An agent that marks each request it carries, so the server can tell it was used.
    const agent = new http.Agent();
    const addRequest = (agent as unknown as { addRequest(req: http.ClientRequest, options: unknown): void }).addRequest.bind(agent);
    (agent as unknown as { addRequest(req: http.ClientRequest, options: unknown): void }).addRequest = (req, options) => {
      req.setHeader('x-through', 'agent');
      addRequest(req, options);
    };
    sendCommunityThrough(community, () => agent);
    rewriteCommunityRequests(community, (options) => {
      options.headers = { ...options.headers, cookie: communityCookies(community, 'https://steamcommunity.com/') };
      options.uri = options.url = String(options.uri ?? options.url).replace('https://steamcommunity.com', base);
    });
    const body = await new Promise<unknown>((resolve, reject) => communityRequest(community, { uri: 'https://steamcommunity.com/probe', json: true }, (err, _res, b) => (err ? reject(err) : resolve(b)), 'test'));
    expect(body).toEqual({ response: { ok: true } });
    expect(seen.at(-1)).toMatchObject({ url: '/probe', agentUsed: true });
    expect(seen.at(-1)?.cookie).toContain('sessionid=abc');
  });

  it('steamcommunity: the confirmations still take the cached clock offset the driver sets', () => {
    expect(String(SteamCommunity.prototype.acceptConfirmationForObject)).toContain('_timeOffset');
  });

  it('steam-tradeoffer-manager: access token, poll and the sent-offer hold-back are reachable', async () => {
    const community = new SteamCommunity();
    const manager = new TradeOfferManager({ community, pollInterval: -1, dataDirectory: null });
    expect(managerCanPoll(manager)).toBe(false);
    expect(managerAccessToken(manager)).toBeUndefined();
    expect(() => pollNow(manager, true)).not.toThrow(); // without a token the library's poll returns at once
    neverHoldBackSentOffers(manager);
    const counter = manager as unknown as { _pendingOfferSendResponses: number };
    counter._pendingOfferSendResponses++;
    expect(counter._pendingOfferSendResponses).toBe(0);
    // setCookies sets the token the history call and the poll need (its API-key step fails offline: not awaited).
    manager.setCookies(['steamLoginSecure=76561198000000000%7C%7Ceyfake.token.value'], () => {});
    expect(managerAccessToken(manager)).toBe('eyfake.token.value');
    expect(managerCanPoll(manager)).toBe(true);
    manager.shutdown();
  });
});
