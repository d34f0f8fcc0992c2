// The operator's hand on prices: pin or block an item (the override list), confirm a
// held jump, read what priced an item or a deposit. Every change is audited in the same
// transaction that stores it, then applied to the engine.
import type { Db } from '../../db/database.js';
import type { Game } from '../../domain/games.js';
import { notFound, validationError } from '../../domain/errors.js';
import { insertAudit } from '../accounts/audit-log.js'; // the one audit log (accounts feature)
import type { PricingService } from './pricing-service.js';
import * as repo from './price-repo.js';

export interface PriceActor {
  actor: string;
  userId: number | null;
  ip: string | null;
}

export interface OverrideInput {
  game: Game;
  market_hash_name: string;
  action: 'pin' | 'block';
  /** mills; pins only */
  price?: number;
  reason?: string;
}

export function createPriceAdminService(deps: { db: Db; pricing: Pick<PricingService, 'override' | 'confirmJump' | 'basis' | 'ensureBases'> }) {
  const { db, pricing } = deps;
  const audit = (trx: Parameters<typeof insertAudit>[0], by: PriceActor, action: string, detail: Record<string, unknown>) =>
    insertAudit(trx, { merchantId: null, userId: by.userId, actor: by.actor, action, detail, ip: by.ip });

  return {
    async setOverride(o: OverrideInput, by: PriceActor) {
      if (o.action === 'pin' && !(o.price !== undefined && o.price > 0)) {
        throw validationError([{ field: 'price', code: 'required', message: 'a pin needs a price above 0' }]);
      }
      if (o.action === 'block' && o.price !== undefined) {
        throw validationError([{ field: 'price', code: 'invalid', message: 'a block takes no price' }]);
      }
      const row = await db.transaction().execute(async (trx) => {
        const r = await repo.upsertOverride(trx, { game: o.game, name: o.market_hash_name, action: o.action, price: o.price ?? null, reason: o.reason ?? '', setBy: by.actor });
        await audit(trx, by, `price_${o.action}`, { game: o.game, market_hash_name: o.market_hash_name, price: o.price ?? null, reason: o.reason ?? '' });
        return r;
      });
      await pricing.override(o.game, o.market_hash_name, { action: o.action, ...(o.price !== undefined ? { price: o.price } : {}) });
      return row;
    },

    async removeOverride(game: Game, name: string, by: PriceActor): Promise<void> {
      const removed = await db.transaction().execute(async (trx) => {
        if (!(await repo.deleteOverride(trx, game, name))) return false;
        await audit(trx, by, 'price_override_removed', { game, market_hash_name: name });
        return true;
      });
      if (!removed) throw notFound();
      await pricing.override(game, name, undefined);
    },

    async confirmJump(game: Game, name: string, by: PriceActor) {
      const pending = pricing.basis(game, name)?.pending_jump ?? null;
      if (pending === null) throw validationError([{ field: 'market_hash_name', code: 'no_jump', message: 'the item holds no price jump to confirm' }]);
      await audit(db, by, 'price_jump_confirmed', { game, market_hash_name: name, price: pending });
      await pricing.confirmJump(game, name);
      return pricing.basis(game, name)!;
    },

    listOverrides: () => repo.listOverrides(db),
    async findBasis(id: number) {
      await pricing.ensureBases([id]); // published bases are written in the background (base-store.ts)
      return repo.findBasis(db, id);
    },
  };
}

export type PriceAdminService = ReturnType<typeof createPriceAdminService>;
