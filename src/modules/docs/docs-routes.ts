// /docs: the docs site (docs-site.ts), built from the served document on the first request.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TypedPlugin } from '../../http/typed-routes.js';
import { notFound } from '../../domain/errors.js';
import { buildDocsSite, compress, type BuiltPage, type DocsSite } from './docs-site.js';

const ASSETS = fileURLToPath(new URL('./assets/', import.meta.url));
const ASSET_TYPES: Record<string, string> = { 'docs.css': 'text/css; charset=utf-8', 'docs.js': 'text/javascript; charset=utf-8' };

function send(req: FastifyRequest, reply: FastifyReply, page: BuiltPage, type: string, cache = 'no-cache') {
  reply.header('content-type', type).header('vary', 'accept-encoding').header('etag', page.etag).header('cache-control', cache);
  if (req.headers['if-none-match'] === page.etag) return reply.code(304).send();
  const accept = String(req.headers['accept-encoding'] ?? '');
  if (/\bbr\b/.test(accept)) return reply.header('content-encoding', 'br').send(page.br);
  if (/\bgzip\b/.test(accept)) return reply.header('content-encoding', 'gzip').send(page.gzip);
  return reply.send(page.identity);
}

export const docsRoutes = (): TypedPlugin => async (app) => {
  const assets = new Map(Object.keys(ASSET_TYPES).map((name) => [name, compress(fs.readFileSync(ASSETS + name))]));
  // The pages name each asset with its version: the browser keeps it for good, a new build names a new URL.
  const version = (name: string) => assets.get(name)!.etag.slice(1, 11);
  const urls = { css: `/docs/assets/docs.css?v=${version('docs.css')}`, js: `/docs/assets/docs.js?v=${version('docs.js')}` };
  let site: DocsSite | undefined;
  const pages = () => (site ??= buildDocsSite(app.swagger() as unknown as Record<string, unknown>, urls)).pages;

  const page = async (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0]!.replace(/\/+$/, '') || '/docs';
    const p = pages().get(path);
    if (!p) throw notFound();
    return send(req, reply, p, 'text/html; charset=utf-8');
  };
  const hide = { schema: { hide: true } };
  app.get('/docs', hide, page);
  app.get('/docs/reference', hide, page);
  app.get('/docs/operator', hide, page);
  app.get('/docs/reference/:slug', hide, page);
  app.get('/docs/operator/:slug', hide, page);
  app.get('/docs/guides/:slug', hide, page);
  const assetSchema = { hide: true, params: Type.Object({ name: Type.String() }), querystring: Type.Object({ v: Type.Optional(Type.String()) }) };
  app.get('/docs/assets/:name', { schema: assetSchema }, async (req, reply) => {
    const name = req.params.name;
    const a = assets.get(name);
    if (!a) throw notFound();
    return send(req, reply, a, ASSET_TYPES[name]!, req.query.v === version(name) ? 'public, max-age=31536000, immutable' : 'no-cache');
  });
};

