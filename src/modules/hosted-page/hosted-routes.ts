// The hosted deposit page (GET /deposit/:token), its static assets (/hosted/assets/*, from browser/ beside this file),
// and its public JSON API (/api/v1/hosted/:token/...), authenticated by the hosted token only.
// Mounted at the root (publicFeatureRoutes).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import type { TypedPlugin } from '../../http/typed-routes.js';
import type { HostedService } from './hosted-service.js';
import { ok } from '../../http/envelope.js';
import { envelopeOf } from '../../http/schemas.js';
import { InventoryResponse } from '../deposits/deposit-schemas.js';
import { isAppError, notFound } from '../../domain/errors.js';
import { hostedPageCsp } from './frame-policy.js';
import {
  HostedDepositRequest,
  HostedInventoryRequest,
  AssetParams,
  HostedTokenParams,
  HostedStateSchema,
} from './hosted-schemas.js';

/** The page and its browser script (plain ES modules, no build step); dist/ gets a copy (scripts/build.mjs). */
export const BROWSER_DIR = fileURLToPath(new URL('./browser/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/** browser/ is small and flat: read once at start-up, served from memory with an ETag. */
function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of fs.readdirSync(dir)) {
    const type = CONTENT_TYPES[path.extname(name)];
    if (!type || !/^[\w.-]+$/.test(name)) continue;
    const body = fs.readFileSync(path.join(dir, name));
    assets.set(name, { body, type, etag: `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
  }
  return assets;
}

function commonHeaders(reply: FastifyReply): FastifyReply {
  // The token is in the page's URL: never leak it through Referer to image hosts or merchants.
  return reply.header('referrer-policy', 'no-referrer').header('x-content-type-options', 'nosniff');
}

export const hostedRoutes = (ctx: { hosted: HostedService }): TypedPlugin => async (app) => {
  const assets = loadAssets(BROWSER_DIR);
  const page = assets.get('deposit.html');
  if (!page) throw new Error(`hosted page missing: ${path.join(BROWSER_DIR, 'deposit.html')}`);
  const { hosted } = ctx;
  const hidden = { hide: true };

  app.get('/deposit/:token', { schema: { ...hidden, params: HostedTokenParams } }, async (req, reply) => {
    const { token } = req.params;
    let frameAncestors: string[] = [];
    let status = 200;
    try {
      frameAncestors = (await hosted.load(token)).merchant.frame_ancestors ?? [];
    } catch (err) {
      if (isAppError(err, 'not_found')) status = 404; // the page itself explains that the link is not valid
      else if (isAppError(err, 'forbidden')) status = 403; // a disabled merchant: the page shows the API's answer
      else throw err;
    }
    return commonHeaders(reply)
      .code(status)
      .header('content-type', page.type)
      .header('cache-control', 'no-store')
      .header('content-security-policy', hostedPageCsp(frameAncestors))
      .send(page.body);
  });

  app.get('/hosted/assets/:file', { schema: { ...hidden, params: AssetParams } }, async (req, reply) => {
    const { file } = req.params;
    const asset = file === 'deposit.html' ? undefined : assets.get(file);
    if (!asset) throw notFound();
    commonHeaders(reply).header('etag', asset.etag).header('cache-control', 'no-cache');
    if (req.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.header('content-type', asset.type).send(asset.body);
  });

  const api = { tags: ['hosted'], params: HostedTokenParams };
  const noStore = (reply: FastifyReply) => commonHeaders(reply).header('cache-control', 'no-store');

  app.get('/api/v1/hosted/:token', { schema: { ...api, summary: 'Hosted page: the intent and its deposit state', response: { 200: envelopeOf(HostedStateSchema) } } }, async (req, reply) => {
    noStore(reply);
    return ok(await hosted.state(req.params.token), 'intent found');
  });

  app.get('/api/v1/hosted/:token/status', { schema: { ...api, summary: 'Hosted page: deposit status (poll)', response: { 200: envelopeOf(HostedStateSchema) } } }, async (req, reply) => {
    noStore(reply);
    return ok(await hosted.state(req.params.token), 'status retrieved');
  });

  app.post(
    '/api/v1/hosted/:token/inventory',
    { schema: { ...api, summary: "Hosted page: the user's priced inventory", body: HostedInventoryRequest, response: { 200: envelopeOf(InventoryResponse) } } },
    async (req, reply) => {
      noStore(reply);
      return ok(await hosted.inventory(req.params.token, req.body), 'inventory loaded');
    },
  );

  app.post(
    '/api/v1/hosted/:token/deposit',
    { schema: { ...api, summary: 'Hosted page: deposit the selected items', body: HostedDepositRequest, response: { 200: envelopeOf(HostedStateSchema) } } },
    async (req, reply) => {
      noStore(reply);
      return ok(await hosted.deposit(req.params.token, req.body), 'deposit created');
    },
  );
};
