// Every task a feature's -jobs.ts declares has exactly one handler in the worker's task list,
// and the list handles nothing undeclared (a job added under a name nobody handles would wait forever).
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/assembly/context.js';
import { buildTaskList } from '../../src/assembly/worker.js';
import { DEPOSIT_TASKS, depositJobKey } from '../../src/modules/deposits/deposit-jobs.js';
import { PURCHASE_TASKS, purchaseJobKey } from '../../src/modules/purchases/purchase-jobs.js';
import { CATALOGUE_TASKS, catalogueJobKey } from '../../src/modules/catalogue/catalogue-jobs.js';
import { WEBHOOK_PRUNE_TASK, WEBHOOK_SWEEP_TASK } from '../../src/modules/webhooks/webhook-jobs.js';
import { idField, stringField } from '../../src/jobs/enqueue.js';
import { RECONCILE_TASKS } from '../../src/modules/reconcile/reconcile-jobs.js';
import { RETENTION_TASKS } from '../../src/modules/retention/retention-jobs.js';
import { MAIL_TASK } from '../../src/modules/accounts/account-mail-jobs.js';

describe('typed jobs', () => {
  it('the worker handles exactly the declared task names', () => {
    // The factories only close over the context; building the list touches nothing.
    const handled = Object.keys(buildTaskList({} as AppContext)).sort();
    const declared = [
      ...Object.values(DEPOSIT_TASKS),
      ...Object.values(PURCHASE_TASKS),
      ...Object.values(CATALOGUE_TASKS),
      ...Object.values(RECONCILE_TASKS),
      ...Object.values(RETENTION_TASKS),
      WEBHOOK_SWEEP_TASK,
      WEBHOOK_PRUNE_TASK,
      MAIL_TASK,
    ].sort();
    expect(new Set(declared).size).toBe(declared.length);
    expect(handled).toEqual(declared);
  });

  it('job keys keep the forms stored by running deployments', () => {
    expect(depositJobKey.offerExpire(7)).toBe('deposit:7:expire');
    expect(depositJobKey.holdEnd(7)).toBe('deposit:7:hold_end');
    expect(depositJobKey.pendingWatchdog(7)).toBe('deposit:7:pending');
    expect(depositJobKey.cancelOffer(7, '99')).toBe('deposit:7:cancel_offer:99');
    expect(purchaseJobKey.offerExpire(7)).toBe('purchase_offer_expire:7');
    expect(purchaseJobKey.holdEnd(7)).toBe('purchase_hold_end:7');
    expect(purchaseJobKey.cancelOffer(7, '99')).toBe('purchase:7:cancel_offer:99');
    expect(catalogueJobKey.eventsPrune()).toBe('catalogue_events_prune');
  });

  it('stored payloads are checked, not trusted', () => {
    expect(idField({ deposit_id: 5 }, 'deposit_id')).toBe(5);
    expect(idField({ deposit_id: '5' }, 'deposit_id')).toBe(5);
    for (const bad of [0, -1, 1.5, 2 ** 53, '', 'x', null, true, {}]) expect(idField({ deposit_id: bad }, 'deposit_id')).toBeUndefined();
    expect(idField(null, 'deposit_id')).toBeUndefined();
    expect(idField({}, 'deposit_id')).toBeUndefined();
    expect(stringField({ trade_offer_id: '12' }, 'trade_offer_id')).toBe('12');
    for (const bad of ['', 12, null, undefined]) expect(stringField({ trade_offer_id: bad }, 'trade_offer_id')).toBeUndefined();
  });
});
