// Operator money movements: top-ups and withdrawals (pending → completed | failed | canceled),
// each an immutable ledger entry applied in the same transaction as the record it belongs to.
import { sql } from 'kysely';
import { isCheckViolation, type Db } from '../../db/database.js';
import { MAX_AMOUNT_MILLS, millsToUsd } from '../../domain/money.js';
import { AppError, invalidTransition, notFound, validationError } from '../../domain/errors.js';
import { applyMovement, getBalance, InsufficientFundsError } from './ledger-moves.js';
import { listEntries } from './ledger-repo.js';
import { verifyLedger, type VerifyOptions } from './ledger-verify.js';
import { WITHDRAWAL_MACHINE, type WithdrawalEvent } from '../../domain/withdrawal-state.js';
import { textProblem } from '../../domain/text-rules.js';

/** A balance's available + hold may not pass this (balances_within_exact_range): the largest amount printed exactly (domain/money.ts). */
export const BALANCE_LIMIT_MILLS = MAX_AMOUNT_MILLS;


export function balanceView(available: number, hold: number) {
  return { total: millsToUsd(available + hold), hold: millsToUsd(hold), available: millsToUsd(available) };
}

function withdrawalView(w: { id: number; merchant_id: number; amount: number; status: string; reference: string | null; created_at: Date | string; updated_at: Date | string }) {
  return {
    id: w.id,
    merchant_id: w.merchant_id,
    amount: millsToUsd(w.amount),
    status: w.status,
    reference: w.reference,
    created_at: new Date(w.created_at).toISOString(),
    updated_at: new Date(w.updated_at).toISOString(),
  };
}

function entryView(e: Awaited<ReturnType<typeof listEntries>>[number]) {
  return {
    id: e.id,
    key: e.key,
    kind: e.kind,
    available_delta: millsToUsd(e.available_delta),
    hold_delta: millsToUsd(e.hold_delta),
    available_after: millsToUsd(e.available_after),
    hold_after: millsToUsd(e.hold_after),
    ref_type: e.ref_type,
    ref_id: e.ref_id,
    created_at: new Date(e.created_at).toISOString(),
  };
}

/** A top-up's or withdrawal's reference is an identifier (domain/text-rules.ts), whoever sends it: the API, the CLI or the console. */
function checkReference(reference: string | undefined): void {
  const problem = reference === undefined ? undefined : textProblem(reference, 'identifier');
  if (problem) throw validationError([{ field: 'reference', code: 'format', message: `reference ${problem.message}` }]);
}

const insufficient = () =>
  validationError([{ field: 'amount', code: 'insufficient_balance', message: 'available balance is lower than the amount' }]);

/** What the ledger needs of merchants: whether one exists (the assembly passes the merchant service). */
export interface LedgerMerchants {
  exists(merchantId: number): Promise<boolean>;
}

export function createLedgerService(db: Db, merchants: LedgerMerchants) {
  async function requireMerchant(merchantId: number) {
    if (!(await merchants.exists(merchantId))) throw notFound();
  }

  return {
    async balance(merchantId: number) {
      const b = await getBalance(db, merchantId);
      if (!b) throw notFound();
      return balanceView(b.available, b.hold);
    },

    /** Idempotent by reference: the same reference twice credits once and answers the first top-up. */
    async topUp(merchantId: number, amountMills: number, reference?: string) {
      checkReference(reference);
      await requireMerchant(merchantId);
      return db.transaction().execute(async (trx) => {
        const ref = reference ?? `auto-${crypto.randomUUID()}`;
        const inserted = await trx
          .insertInto('top_ups')
          .values({ merchant_id: merchantId, amount: amountMills, reference: ref })
          .onConflict((oc) => oc.columns(['merchant_id', 'reference']).doNothing())
          .returningAll()
          .executeTakeFirst();
        const topUp =
          inserted ??
          (await trx.selectFrom('top_ups').selectAll().where('merchant_id', '=', merchantId).where('reference', '=', ref).executeTakeFirstOrThrow());
        if (inserted) {
          await applyMovement(trx, {
            merchantId, key: `topup:${topUp.id}`, kind: 'top_up', availableDelta: amountMills, holdDelta: 0, refType: 'top_up', refId: topUp.id,
          });
        } else if (topUp.amount !== amountMills) {
          throw validationError([{ field: 'reference', code: 'exist', message: 'reference already used for a different amount' }]);
        }
        const b = (await getBalance(trx, merchantId))!;
        return { id: topUp.id, amount: millsToUsd(topUp.amount), reference: topUp.reference, duplicate: !inserted, balance: balanceView(b.available, b.hold) };
      }).catch((err) => {
        if (isCheckViolation(err, 'balances_within_exact_range')) {
          throw validationError([{ field: 'amount', code: 'max', message: `the balance would pass its limit of ${millsToUsd(BALANCE_LIMIT_MILLS)} USD (available + hold)` }]);
        }
        throw err;
      });
    },

    async createWithdrawal(merchantId: number, amountMills: number, reference?: string) {
      checkReference(reference);
      await requireMerchant(merchantId);
      try {
        return await db.transaction().execute(async (trx) => {
          const w = await trx
            .insertInto('withdrawals')
            .values({ merchant_id: merchantId, amount: amountMills, reference: reference ?? null })
            .returningAll()
            .executeTakeFirstOrThrow();
          await applyMovement(trx, {
            merchantId, key: `withdrawal:${w.id}:debit`, kind: 'withdrawal', availableDelta: -amountMills, holdDelta: 0, refType: 'withdrawal', refId: w.id,
          });
          return withdrawalView(w);
        });
      } catch (err) {
        if (err instanceof InsufficientFundsError) throw insufficient();
        throw err;
      }
    },

    async transitionWithdrawal(id: number, action: WithdrawalEvent) {
      const rule = WITHDRAWAL_MACHINE.transitions[action];
      return db.transaction().execute(async (trx) => {
        // The status guard in the UPDATE makes concurrent transitions race safely: one wins.
        const w = await trx
          .updateTable('withdrawals')
          .set({ status: rule.to, updated_at: sql`now()` as never })
          .where('id', '=', id)
          .where('status', 'in', rule.from)
          .returningAll()
          .executeTakeFirst();
        if (!w) {
          const current = await trx.selectFrom('withdrawals').select('status').where('id', '=', id).executeTakeFirst();
          if (!current) throw notFound();
          throw invalidTransition(current.status, action);
        }
        if (rule.movement === 'return') {
          await applyMovement(trx, {
            merchantId: w.merchant_id, key: `withdrawal:${w.id}:return`, kind: 'withdrawal_return', availableDelta: w.amount, holdDelta: 0, refType: 'withdrawal', refId: w.id,
          });
        }
        return withdrawalView(w);
      });
    },

    async listWithdrawals(merchantId: number, limit: number, offset: number) {
      await requireMerchant(merchantId);
      const rows = await db.selectFrom('withdrawals').selectAll().where('merchant_id', '=', merchantId).orderBy('id', 'desc').limit(limit).offset(offset).execute();
      return rows.map(withdrawalView);
    },

    async entries(merchantId: number, limit: number, offset: number) {
      await requireMerchant(merchantId);
      return (await listEntries(db, merchantId, limit, offset)).map(entryView);
    },

    /** Every balance against its entries (one merchant: its own, at once; all: by id ranges on one snapshot, checkpointed). */
    verify: (merchantId?: number, opts?: VerifyOptions) => verifyLedger(db, merchantId, opts),
  };
}

export type LedgerService = ReturnType<typeof createLedgerService>;
export { AppError };
