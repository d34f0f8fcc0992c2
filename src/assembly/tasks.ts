// Feature job handlers. A feature adds a factory returning { task_name: handler }.
import type { TaskList } from 'graphile-worker';
import type { AppContext } from './context.js';
import { webhookTasks } from '../modules/webhooks/webhook-tasks.js';
import { depositTasks } from '../modules/deposits/deposit-tasks.js';
import { catalogueTasks } from '../modules/catalogue/catalogue-tasks.js';
import { purchaseTasks } from '../modules/purchases/purchase-tasks.js';
import { reconcileTasks } from '../modules/reconcile/reconcile-tasks.js';
import { retentionTasks } from '../modules/retention/retention-tasks.js';
import { mailTasks } from '../modules/mail/mail-tasks.js';

export type TaskFactory = (ctx: AppContext) => TaskList;

export const featureTasks: TaskFactory[] = [webhookTasks, depositTasks, catalogueTasks, purchaseTasks, reconcileTasks, retentionTasks, mailTasks];
