// Catalogue wire shapes and pure helpers (spec 2.6, 4.11; DESIGN 8): the merchant's price of a
// listing (base price × purchase_markup), the listing and group forms, ETag matching, and the
// fixed-width UTC cursors of the change feed. No I/O.
import type { Game } from '../../domain/games.js';
import { applyRate, millsToUsd } from '../../domain/money.js';
import type { GroupRow, ListingView } from './catalogue-repo.js';

export interface MerchantPricing {
  purchase_markup: number | string;
}

export interface ListingWire {
  id: string;
  name: string;
  price: number;
  image_url: string;
  exterior?: string;
  rarity?: string;
  rarity_color?: string;
  class_id?: number;
  instance_id?: number;
  asset_id?: string;
  float?: number;
  paint_seed?: number;
  inspect_url?: string;
  phase?: string;
}

export interface GroupWire {
  name: string;
  count: number;
  price: number;
  game: Game;
  image_url: string;
}

export interface AvailableQuery {
  game: Game;
  full: boolean;
  extended: boolean;
  page?: number;
}

export function markupOf(m: MerchantPricing): number {
  const n = Number(m.purchase_markup);
  return Number.isFinite(n) && n > 0 ? n : 1;
}

/** The price a merchant sees and pays for a listing (mills). */
export function salePrice(baseMills: number, merchant: MerchantPricing): number {
  return applyRate(baseMills, markupOf(merchant));
}

export function absoluteUrl(publicUrl: string, url: string | null | undefined): string {
  if (!url) return '';
  return url.startsWith('/') ? publicUrl + url : url;
}

/** Full form (2.6): optional fields omitted when unavailable; extended ones only on request. */
export function listingWire(l: ListingView, markup: number, extended: boolean, publicUrl: string): ListingWire {
  const out: ListingWire = { id: l.id, name: l.name, price: millsToUsd(applyRate(l.base_price, markup)), image_url: absoluteUrl(publicUrl, l.image_url) };
  if (l.exterior) out.exterior = l.exterior;
  if (l.rarity) out.rarity = l.rarity;
  if (l.rarity_color) out.rarity_color = l.rarity_color;
  if (extended) {
    if (l.class_id !== null) out.class_id = l.class_id;
    if (l.instance_id !== null) out.instance_id = l.instance_id;
    if (l.asset_id) out.asset_id = l.asset_id;
    if (l.float !== null) out.float = l.float;
    if (l.paint_seed !== null) out.paint_seed = l.paint_seed;
    if (l.inspect_url) out.inspect_url = l.inspect_url;
    if (l.phase) out.phase = l.phase;
  }
  return out;
}

export function groupWire(g: GroupRow, game: Game, markup: number, publicUrl: string): GroupWire {
  return { name: g.name, count: g.count, price: millsToUsd(applyRate(g.min_price, markup)), game, image_url: absoluteUrl(publicUrl, g.image_url) };
}

/** Weak comparison of an If-None-Match header against our ETag (lists and W/ allowed). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header === etag) return true; // a client sending back the ETag it was given: the poll's usual case
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v.replace(/^W\//, '') === bare;
  });
}

/** Fixed-width UTC ISO cursor (millisecond) ↔ epoch milliseconds. */
const CURSOR_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?Z$/;
export function parseCursor(s: string): number | undefined {
  const m = CURSOR_RE.exec(s);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${(m[7] ?? '0').padEnd(3, '0').slice(0, 3)}Z`);
  return Number.isFinite(ms) ? ms : undefined;
}
