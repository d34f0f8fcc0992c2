// Small helpers for the deposit tests.
import { expect } from 'vitest';
import type { TestGateway } from '../helpers.js';

export const TOKEN = 'abcdefgh';
let partnerSeq = 10_000_000 + Math.floor(Math.random() * 1_000_000) * 10;
/** A fresh ordinary sandbox partner (not magic). */
export const nextPartner = () => ++partnerSeq;
let txSeq = 0;
export const nextTx = (p = 'tx') => `${p}-${Date.now()}-${++txSeq}`;

export async function inventory(gw: TestGateway, key: string, partner: number, game = 'csgo') {
  const res = await gw.merchant(key, 'POST', '/inventory', { game, partner, token: TOKEN });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { items: { id: string; name: string; price: number }[]; total: number; sum: number; game: string; max_items: number };
}

/** An active deposit through the inventory flow: returns the create-deposit answer data. */
export async function activeDeposit(gw: TestGateway, key: string, opts: { game?: string; count?: number; body?: Record<string, unknown> } = {}) {
  const partner = nextPartner();
  const game = opts.game ?? 'csgo';
  const inv = await inventory(gw, key, partner, game);
  const ids = inv.items.slice(0, opts.count ?? 2).map((i) => i.id);
  const res = await gw.merchant(key, 'POST', '/create-deposit', {
    merchant_tx_id: nextTx(),
    game,
    partner,
    token: TOKEN,
    asset_ids: ids,
    ...opts.body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.status).toBe('active');
  return res.body.data as { id: number; merchant_tx_id: string; amount: number; status: string; trade_offer_id: string };
}

export async function balance(gw: TestGateway, key: string) {
  const res = await gw.merchant(key, 'GET', '/balance');
  expect(res.status).toBe(200);
  return res.body.data as { total: number; hold: number; available: number };
}

export async function expectBooksBalance(gw: TestGateway) {
  const v = await gw.ctx.ledger.verify();
  expect(v.mismatches).toEqual([]);
}

export async function webhookEvents(gw: TestGateway, depositId: number) {
  return gw.ctx.db
    .selectFrom('webhook_events')
    .selectAll()
    .where('kind', '=', 'deposit')
    .where('record_id', '=', depositId)
    .orderBy('id')
    .execute();
}

export const payloadOf = (e: { payload: unknown }) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload) as Record<string, unknown>;

/**
 * Real assets of a sandbox user (the platform's fresh read): tradable, priced, without a phase,
 * one per distinct name, at most `n` — what a hash-name commit may honestly name.
 */
export async function realAssets(gw: TestGateway, partner: number, n: number, game: 'csgo' | 'rust' | 'dota2' | 'tf2' = 'csgo') {
  const inv = await gw.ctx.platform.loadInventory(game, partner, TOKEN);
  const seen = new Set<string>();
  const out: { asset_id: string; name: string }[] = [];
  for (const it of inv) {
    if (out.length >= n) break;
    if (it.tradable === false || it.phase || seen.has(it.marketHashName) || !gw.ctx.pricing.quote({ deposit_multiplier: 1 }, game, it.marketHashName)) continue;
    seen.add(it.marketHashName);
    out.push({ asset_id: it.assetId, name: it.marketHashName });
  }
  return out;
}
