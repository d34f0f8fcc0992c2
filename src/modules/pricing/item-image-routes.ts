// Item images of the sandbox price book, served by us: an SVG card drawn from the item's name
// and rarity colour. Public and cacheable (the content is a pure function of the URL and book).
import crypto from 'node:crypto';
import type { TypedPlugin } from '../../http/typed-routes.js';
import { Type, type Static } from '@sinclair/typebox';
import type { PricingService } from './pricing-service.js';
import { isGame } from '../../domain/games.js';

const Params = Type.Object({ game: Type.String({ maxLength: 16 }), file: Type.String({ maxLength: 600 }) }, { title: 'ItemImageParams' });

function esc(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Word-wraps a name into at most `max` lines of about `width` characters. */
function wrap(text: string, width = 22, max = 4): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && (line + ' ' + word).length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  if (lines.length > max) {
    lines.length = max;
    lines[max - 1] = lines[max - 1].slice(0, width - 1) + '…';
  }
  return lines.map((l) => (l.length > width + 6 ? l.slice(0, width + 5) + '…' : l));
}

export function itemSvg(name: string, colour: string, game: string): string {
  const c = /^[0-9a-f]{6}$/i.test(colour) ? `#${colour}` : '#b0c3d9';
  const lines = wrap(name);
  const text = lines
    .map((l, i) => `<text x="128" y="${96 + i * 22 - (lines.length - 1) * 11}" text-anchor="middle" font-family="sans-serif" font-size="16" fill="#f0f0f0">${esc(l)}</text>`)
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="192" viewBox="0 0 256 192">` +
    `<rect width="256" height="192" rx="10" fill="#1b1f27"/>` +
    `<rect y="176" width="256" height="16" fill="${c}"/>` +
    `<text x="12" y="24" font-family="sans-serif" font-size="12" fill="${c}">${esc(game.toUpperCase())}</text>` +
    text +
    `</svg>`
  );
}

export const itemImageRoutes = (ctx: { pricing: PricingService }): TypedPlugin => async (app) => {
  app.get<{ Params: Static<typeof Params> }>(
    '/static/item-image/:game/:file',
    { schema: { hide: true, params: Params } },
    async (request, reply) => {
      const { game, file } = request.params;
      if (!isGame(game) || !file.endsWith('.svg')) return reply.code(404).send({ success: false, message: 'not found error' });
      let name: string;
      try {
        name = decodeURIComponent(file.slice(0, -4));
      } catch {
        return reply.code(404).send({ success: false, message: 'not found error' });
      }
      const entry = ctx.pricing.entry(game, name);
      if (!entry) return reply.code(404).send({ success: false, message: 'not found error' });
      const svg = itemSvg(name, entry.rarity_color ?? '', game);
      const etag = `"${crypto.createHash('sha1').update(svg).digest('base64url').slice(0, 16)}"`;
      reply.header('cache-control', 'public, max-age=86400').header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.type('image/svg+xml; charset=utf-8').send(svg);
    },
  );
};
