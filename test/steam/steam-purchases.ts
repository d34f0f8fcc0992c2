// Purchases against the stand-in platform, shared by the steam fault tests: a listing of an item a
// bot holds, a purchase of it left pending (the test drives its dispatch attempts), and lookups.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { importListings } from '../../src/modules/catalogue/catalogue-import.js';
import type { SteamWorld } from './steam-helpers.js';

const NAME = 'AK-47 | Redline (Minimal Wear)';

export interface PurchaseKit {
  /** A listing of an item bot 0 holds and a purchase of it, still pending (the prefix: lowercase hex, a listing id's form). */
  create(): Promise<{ id: number; assetId: string; partner: number; listingId: string }>;
  status(id: number): Promise<{ status: string; fail_reason?: string; [k: string]: unknown }>;
  /** The platform's offers made for the purchase (its message names it). */
  offers(id: number): Array<{ id: string; state: number }>;
  /** Dispatch attempts until one ends without asking for a retry (at most five); answers how many threw. */
  dispatchUntilSettled(id: number, afterFailedAttempt?: () => Promise<void>): Promise<number>;
}

export function purchaseKit(w: SteamWorld, key: string, o: { token: string; assetBase: number; prefix: string; nextPartner: () => number }): PurchaseKit {
  let seq = 0;
  const kit: PurchaseKit = {
    async create() {
      const bot = w.bots[0].fake;
      const n = ++seq;
      const assetId = String(o.assetBase + n);
      bot.items.push({ assetid: assetId, classid: '7', name: NAME });
      const file = path.join(await fs.mkdtemp(path.join(os.tmpdir(), `steam-${o.prefix}-`)), 'listings.jsonl');
      const listingId = `${o.prefix}${String(n).padStart(14, '0')}`;
      await fs.writeFile(file, JSON.stringify({ id: listingId, game: 'csgo', name: NAME, price: 3.5, inspect_url: `steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20S${bot.steamId}A${assetId}D4649842965496580321` }) + '\n');
      expect((await importListings(w.gw.ctx, file, () => {})).errors).toEqual([]);
      const partner = o.nextPartner();
      w.fake.addUser({ partner, token: o.token, items: [] });
      const p = await w.gw.merchant(key, 'POST', '/purchase', { partner, token: o.token, game: 'csgo', asset_id: listingId, merchant_tx_id: `${o.prefix}-${n}` });
      expect(p.status, JSON.stringify(p.body)).toBe(200);
      expect(p.body.data.status).toBe('pending');
      return { id: p.body.data.id, assetId, partner, listingId };
    },
    status: async (id) => (await w.gw.merchant(key, 'GET', `/purchase/status?id=${id}`)).body.data,
    offers: (id) => [...w.fake.offers.values()].filter((x) => x.message.startsWith(`[gw:purchase:${id}]`)),
    async dispatchUntilSettled(id, afterFailedAttempt) {
      let retried = 0;
      for (let attempts = 1; attempts <= 5; attempts++) {
        try {
          await w.gw.ctx.purchases.dispatch(id, { attempts, maxAttempts: 5 });
          return retried;
        } catch {
          retried++;
          await afterFailedAttempt?.();
        }
      }
      return retried;
    },
  };
  return kit;
}
