// Feature job handlers. A feature adds a factory returning { task_name: handler }.
import type { TaskList } from 'graphile-worker';
import type { AppContext } from '../context.js';
import { webhookTasks } from './webhooks/webhook-tasks.js';
import { depositTasks } from './deposits/deposit-tasks.js';
import { catalogueTasks } from './catalogue/catalogue-tasks.js';
import { purchaseTasks } from './purchases/purchase-tasks.js';
import { reconcileTasks } from './reconcile/reconcile-tasks.js';
import { retentionTasks } from './retention/retention-tasks.js';
import { mailTasks } from './mail/mail-tasks.js';

export type TaskFactory = (ctx: AppContext) => TaskList;

export const featureTasks: TaskFactory[] = [webhookTasks, depositTasks, catalogueTasks, purchaseTasks, reconcileTasks, retentionTasks, mailTasks];
