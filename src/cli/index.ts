// The `gateway` CLI: the operator API's operations, run against the database directly with the
// same services the HTTP API uses. Human-readable output by default, JSON with --json.
import { Command, Option } from 'commander';
import { AppError } from '../domain/errors.js';
import { loadConfig } from '../config.js';
import type { CliContext } from './context.js';
import { progressBar } from './progress.js';
import { registerBotCommands } from './bot-commands.js';
import { registerBackupCommands } from './backup-commands.js';
import { registerDoctorCommand } from './doctor.js';
import { formatTable } from './table.js';

// The services (and their libraries) are loaded by the command that runs, not at start:
// `gateway --help` and a mistyped option answer without loading them.
const amountTextToMills = async (text: string) => (await import('../modules/admin/admin-routes.js')).amountTextToMills(text);
const accounts = async (ctx: CliContext) => (await import('../modules/accounts/accounts-service.js')).createAccountsService(ctx);

const program = new Command();
program
  .name('gateway')
  .description('Skin trading gateway operator CLI (uses DATABASE_URL, or the embedded database under DATA_DIR)')
  .option('--json', 'print JSON');

type Action = (ctx: CliContext, ...args: any[]) => Promise<unknown>;

/** Opens the database, runs the action, prints the result, and always closes. */
function run(action: Action, humanTitle?: string, columns?: string[]) {
  return async (...args: unknown[]) => {
    const json = Boolean(program.opts().json);
    let ctx: CliContext | undefined;
    try {
      const { openCliContext } = await import('./context.js');
      ctx = await openCliContext(loadConfig());
      const result = await action(ctx, ...args);
      print(result, json, humanTitle, columns);
    } catch (err) {
      if (err instanceof AppError) {
        const out = { success: false, message: err.message, data: err.data };
        console.error(json ? JSON.stringify(out) : `error: ${err.message}${err.data ? `\n${JSON.stringify(err.data, null, 2)}` : ''}`);
      } else {
        console.error(`error: ${(err as Error).message}`);
      }
      process.exitCode = 1;
    } finally {
      await ctx?.close();
    }
    // Exit explicitly: the embedded database's exit hook would otherwise end the process with 0.
    const code = Number(process.exitCode ?? 0);
    process.stdout.write('', () => process.exit(code));
  };
}

/** `columns`: the fields of a list's human table (--json prints every field). */
function print(result: unknown, json: boolean, title?: string, columns?: string[]) {
  if (result === undefined) return;
  if (json) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  if (title) console.log(title);
  if (Array.isArray(result)) {
    if (result.length === 0) console.log('(none)');
    else console.log(formatTable((result as Record<string, unknown>[]).map((r) => (columns ? Object.fromEntries(columns.map((c) => [c, r[c]])) : r))));
  } else if (result && typeof result === 'object') {
    for (const [k, v] of Object.entries(result)) {
      console.log(`  ${k.padEnd(24)} ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`);
    }
  } else {
    console.log(String(result));
  }
}

const int = (v: string) => {
  if (!/^\d+$/.test(v)) throw new Error(`not a positive integer: ${v}`);
  return Number(v);
};
const num = (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`not a number: ${v}`);
  return n;
};
const collect = (v: string, prev: string[] = []) => [...prev, v];
const onOff = (v: string) => {
  if (/^(on|true|yes|1)$/i.test(v)) return true;
  if (/^(off|false|no|0)$/i.test(v)) return false;
  throw new Error(`expected on or off, got ${v}`);
};

// ---- merchants
const merchant = program.command('merchant').description('merchant accounts');
merchant
  .command('create')
  .description('create a merchant; prints its API key and webhook secret once')
  .requiredOption('--name <name>')
  .option('--webhook-url <url>')
  .option('--ip <address>', 'whitelisted IP (repeat)', collect)
  .option('--preview', 'enable deposit-preview')
  .option('--max-items <n>', 'per-deposit item limit', int)
  .option('--deposit-multiplier <x>', 'deposit price multiplier', num)
  .option('--purchase-markup <x>', 'catalogue price markup', num)
  .option('--frame-ancestor <origin>', 'site allowed to frame the hosted page (repeat)', collect)
  .option('--rate-limit <n>', 'requests per minute on the merchant API (default: RATE_LIMIT_MERCHANT_PER_MINUTE)', int)
  .action(
    run((ctx, o) =>
      ctx.merchants.create({
        rate_limit_per_minute: o.rateLimit,
        frame_ancestors: o.frameAncestor,
        name: o.name,
        webhook_url: o.webhookUrl,
        ip_whitelist: o.ip,
        deposit_preview_enabled: o.preview,
        max_items: o.maxItems,
        deposit_multiplier: o.depositMultiplier,
        purchase_markup: o.purchaseMarkup,
      }),
    'merchant created (the API key and webhook secret are shown only now):'),
  );
merchant.command('list').description('merchants, with their settings').option('--limit <n>', 'at most this many', int, 100).option('--offset <n>', 'skip this many', int, 0)
  .action(run((ctx, o) => ctx.merchants.list(o.limit, o.offset)));
merchant.command('show <id>').description('a merchant with its balance').action(run((ctx, id) => ctx.merchants.get(int(id))));
merchant
  .command('update <id>')
  .description("change a merchant's settings (only the options given)")
  .option('--name <name>')
  .addOption(new Option('--enabled <on|off>').argParser(onOff))
  .option('--webhook-url <url>', 'webhook URL ("" to clear)')
  .option('--ip <address>', 'replace the whitelist (repeat; --ip "" clears)', collect)
  .addOption(new Option('--preview <on|off>').argParser(onOff))
  .option('--max-items <n>', '', int)
  .option('--deposit-multiplier <x>', '', num)
  .option('--purchase-markup <x>', '', num)
  .option('--frame-ancestor <origin>', 'replace the sites allowed to frame the hosted page (repeat; "" clears)', collect)
  .option('--rate-limit <n|default>', 'requests per minute on the merchant API ("default": RATE_LIMIT_MERCHANT_PER_MINUTE)', (v: string) => (v === 'default' || v === '' ? 'default' : int(v)))
  .action(
    run((ctx, id, o) => {
      const patch: Record<string, unknown> = {};
      if (o.name !== undefined) patch.name = o.name;
      if (o.enabled !== undefined) patch.enabled = o.enabled;
      if (o.webhookUrl !== undefined) patch.webhook_url = o.webhookUrl === '' ? null : o.webhookUrl;
      if (o.ip !== undefined) patch.ip_whitelist = (o.ip as string[]).filter((x) => x !== '');
      if (o.preview !== undefined) patch.deposit_preview_enabled = o.preview;
      if (o.maxItems !== undefined) patch.max_items = o.maxItems;
      if (o.depositMultiplier !== undefined) patch.deposit_multiplier = o.depositMultiplier;
      if (o.purchaseMarkup !== undefined) patch.purchase_markup = o.purchaseMarkup;
      if (o.frameAncestor !== undefined) patch.frame_ancestors = (o.frameAncestor as string[]).filter((x) => x !== '');
      // commander turns a parser's null into '': "default" is mapped here.
      if (o.rateLimit !== undefined) patch.rate_limit_per_minute = o.rateLimit === 'default' ? null : o.rateLimit;
      return ctx.merchants.update(int(id), patch);
    }),
  );
merchant.command('rotate-key <id>').description('new API key; the old one stops working at once')
  .action(run((ctx, id) => ctx.merchants.rotateKey(int(id))));
merchant.command('rotate-webhook-secret <id>').description('new webhook signing secret (shown once)').action(run((ctx, id) => ctx.merchants.rotateWebhookSecret(int(id))));

// ---- dashboard accounts (the link is shown once; PUBLIC_URL is its base)
const cliActor = { userId: null, actor: 'cli', ip: null };
merchant.command('invite <id>').description('invite an e-mail address to the merchant dashboard; prints the one-time link')
  .requiredOption('--email <address>')
  .addOption(new Option('--role <role>').choices(['owner', 'developer', 'viewer']).default('owner'))
  .action(run(async (ctx, id, o) => (await accounts(ctx)).invite({ merchantId: int(id), email: o.email, role: o.role }, cliActor), 'invitation created (the link works once):'));
merchant.command('users <id>').description("the merchant's dashboard users")
  .action(run(async (ctx, id) => (await (await accounts(ctx)).listUsers(int(id))).map((await import('../modules/accounts/account-admin-routes.js')).userView)));
const operator = program.command('operator').description('operator console accounts');
for (const name of ['create', 'invite']) {
  operator.command(name).description('invite an operator to the console; prints the one-time link')
    .requiredOption('--email <address>')
    .action(run(async (ctx, o) => (await accounts(ctx)).invite({ merchantId: null, email: o.email, role: 'operator' }, cliActor), 'invitation created (the link works once):'));
}
program.command('audit').description('the audit log, newest first').option('--merchant <id>', "only this merchant's entries", int).option('--limit <n>', 'at most this many', int, 50)
  .action(run(async (ctx, o) => (await (await accounts(ctx)).listAudit({ merchantId: o.merchant, limit: o.limit })).map((a) => ({ ...a, at: new Date(a.at).toISOString(), detail: JSON.stringify(a.detail) }))));

// ---- money
program.command('top-up <merchantId> <amount>').description('credit available balance (USD)')
  .option('--reference <ref>', 'idempotency reference')
  .action(run(async (ctx, id, amount, o) => ctx.ledger.topUp(int(id), await amountTextToMills(amount), o.reference)));

const withdrawal = program.command('withdrawal').description('merchant withdrawals');
withdrawal.command('create <merchantId> <amount>').description('request a withdrawal (USD); the amount leaves available at once').option('--reference <ref>', 'idempotency reference')
  .action(run(async (ctx, id, amount, o) => ctx.ledger.createWithdrawal(int(id), await amountTextToMills(amount), o.reference)));
withdrawal.command('list <merchantId>').description("the merchant's withdrawals, newest first").option('--limit <n>', 'at most this many', int, 50).option('--offset <n>', 'skip this many', int, 0)
  .action(run((ctx, id, o) => ctx.ledger.listWithdrawals(int(id), o.limit, o.offset)));
for (const action of ['complete', 'fail', 'cancel'] as const) {
  withdrawal.command(`${action} <withdrawalId>`).description(action === 'complete' ? 'mark a pending withdrawal paid out' : `${action} a pending withdrawal (the amount comes back)`).action(run((ctx, id) => ctx.ledger.transitionWithdrawal(int(id), action)));
}

const ledger = program.command('ledger').description('the balance ledger');
ledger.command('list <merchantId>').description("the merchant's ledger entries, newest first, with running balances").option('--limit <n>', 'at most this many', int, 50).option('--offset <n>', 'skip this many', int, 0)
  .action(run((ctx, id, o) => ctx.ledger.entries(int(id), o.limit, o.offset)));
ledger
  .command('verify')
  .description('prove every balance equals the sum of its ledger entries (exit 1 on a mismatch); a clean run stores a checkpoint')
  .option('--merchant <id>', 'only this merchant', int)
  .option('--incremental', 'start from the stored checkpoint: read only the entries written since (for a daily run)')
  .action(
    run(async (ctx, o) => {
      // By ranges of entry ids on one snapshot: progress on stderr, memory per merchant, not per entry.
      const bar = progressBar(o.incremental ? 'verifying the ledger (from its checkpoint)' : 'verifying the ledger');
      const r = await ctx.ledger.verify(o.merchant, { incremental: o.incremental === true, onProgress: (done, total) => bar.update(done, total) });
      bar.done();
      if (r.mismatches.length) process.exitCode = 1;
      return { ok: r.mismatches.length === 0, ...r };
    }),
  );

// ---- retention
program
  .command('retention')
  .description('retention of what grows without bound (the retention_prune job runs it every RETENTION_INTERVAL_SECONDS)')
  .command('prune')
  .description('delete now what is past the retention settings (delivered webhook events too), in batches paced by RETENTION_BUSY_PERCENT; prints rows deleted per kind')
  .action(
    run(async (ctx) => {
      const { pruneAll } = await import('../modules/retention/retention-service.js');
      const run = await pruneAll(ctx.db, ctx.config);
      // What job webhook_prune deletes hourly, so that one command works off a whole backlog.
      const webhookDelivered = await requireFeature(ctx, 'webhooks').prune();
      return { ...run, deleted: { ...run.deleted, webhook_delivered: webhookDelivered } };
    }),
  );

// ---- webhooks
const webhooks = program.command('webhook').description('webhook deliveries');
webhooks.command('deliveries <merchantId>').description("the merchant's webhook events with their attempts").option('--limit <n>', 'at most this many', int, 50).option('--offset <n>', 'skip this many', int, 0)
  .option('--status <s>', 'pending, delivered or exhausted')
  .action(run((ctx, id, o) => requireFeature(ctx, 'webhooks').listDeliveries(int(id), { limit: o.limit, offset: o.offset, status: o.status })));
webhooks.command('redeliver <eventId>').description('queue one more attempt of a webhook event').action(run((ctx, id) => requireFeature(ctx, 'webhooks').redeliver(int(id))));

// ---- catalogue
const catalogue = program.command('catalogue').description('the purchase catalogue');
catalogue
  .command('import <file>')
  .description('load a listing file (JSON lines or CSV) into the catalogue, with progress')
  .action(
    run(async (ctx, file) => {
      const bar = progressBar('importing');
      try {
        const { importListings } = await import('../modules/catalogue/catalogue-import.js');
        const result = await importListings(ctx, file, (p) => bar.update(p.bytesRead, p.totalBytes));
        if (result.errors.length) process.exitCode = 1;
        return result;
      } finally {
        bar.done();
      }
    }),
  );

registerBotCommands(program, run, int, onOff);
registerBackupCommands(program);
registerDoctorCommand(program);

program
  .command('reconcile')
  .description('compare the bots\' trade history and inventories with the records; lists each discrepancy with what to do (exit 1 when any, or when a bot could not be read)')
  .action(
    run(async (ctx) => {
      const r = await ctx.reconcile.run();
      if (r.total > 0 || r.read_errors.length > 0) process.exitCode = 1;
      return r;
    }, 'reconciliation:'),
  );

function requireFeature<K extends string>(ctx: CliContext, key: K): any {
  const svc = (ctx as unknown as Record<string, unknown>)[key];
  if (!svc) throw new Error(`${key} is not available in this build`);
  return svc;
}

program.parseAsync(process.argv).catch((err) => {
  console.error(`error: ${(err as Error).message}`);
  process.exit(1);
});
