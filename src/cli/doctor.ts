// `gateway doctor`: checks a configuration (the environment the command runs with, the gateway's
// database) before it goes live and prints one aligned line per item — ok, warn, missing or wrong,
// with what to do — or, with --json, the items. Exit 1 when anything blocks going live. The rules
// are src/modules/admin/preflight.ts; this file only gathers what they judge and changes nothing of
// the gateway's (each price source is polled once; the database is opened as every command opens
// it, its migrations included).
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { sql } from 'kysely';
import pino from 'pino';
import { ConfigError, loadConfig, SANDBOX_PRICEBOOK_DIR, steamPricingProblem, type Config } from '../config.js';
import type { Db } from '../db/database.js';
import { blocks, exitCodeOf, formatPreflight, preflight, type BotFact, type LastBackup, type PreflightFacts, type PreflightItem } from '../modules/admin/preflight.js';

/** Where `gateway backup create` records its last backup, in DATA_DIR. */
const LAST_BACKUP_FILE = 'last-backup.json';
/** Files larger than this are not searched for the bots' key (backups and the cluster are far larger; a key file or env file is tiny). */
const KEY_SCAN_MAX_FILE_BYTES = 1 << 20;
const KEY_SCAN_MAX_FILES = 5000;

/** Whether a PRICE_BOOK file, or a file of a PRICE_BOOK directory, holds the very bytes of a shipped sandbox book file. */
async function isSandboxBookCopy(source: string): Promise<boolean> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(source.trim()) && !/^[a-z]:[\\/]/i.test(source.trim())) return false; // a URL or skinport: list
  const shipped = new Map<number, Buffer[]>();
  for (const f of await fs.readdir(SANDBOX_PRICEBOOK_DIR)) {
    const b = await fs.readFile(path.join(SANDBOX_PRICEBOOK_DIR, f));
    shipped.set(b.length, [...(shipped.get(b.length) ?? []), b]);
  }
  const info = await fs.stat(source).catch(() => undefined);
  if (!info) return false;
  const files = info.isDirectory() ? (await fs.readdir(source)).map((f) => path.join(source, f)) : [source];
  for (const f of files) {
    const st = await fs.stat(f).catch(() => undefined);
    const same = st?.isFile() ? shipped.get(st.size) : undefined;
    if (!same) continue;
    const b = await fs.readFile(f);
    if (same.some((s) => s.equals(b))) return true;
  }
  return false;
}

/** Small files under these directories (the cluster's own directory skipped) whose bytes hold the key's text. */
async function filesHolding(key: string, dirs: string[], skip: string[]): Promise<string[]> {
  const needle = Buffer.from(key);
  const found: string[] = [];
  let seen = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (++seen > KEY_SCAN_MAX_FILES) return;
      const p = path.join(dir, e.name);
      if (skip.includes(p)) continue;
      if (e.isDirectory() && depth < 4) await walk(p, depth + 1);
      else if (e.isFile()) {
        const st = await fs.stat(p).catch(() => undefined);
        if (!st || st.size > KEY_SCAN_MAX_FILE_BYTES) continue;
        const b = await fs.readFile(p).catch(() => undefined);
        if (b?.includes(needle) && !found.includes(p)) found.push(p);
      }
    }
  };
  for (const d of [...new Set(dirs)]) await walk(d, 0);
  return found;
}

async function readLastBackup(dataDir: string): Promise<PreflightFacts['backup']> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dataDir, LAST_BACKUP_FILE), 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? {} : { unreadable: (err as Error).message };
  }
  let last: LastBackup;
  try {
    last = JSON.parse(text) as LastBackup;
    if (!last || typeof last.path !== 'string' || typeof last.bytes !== 'number') throw new Error('expected {"at", "path", "bytes"}');
  } catch (err) {
    return { unreadable: (err as Error).message };
  }
  const st = await fs.stat(path.resolve(dataDir, last.path)).catch(() => null);
  // A directory (a base backup) has no one size to compare: only whether it is there.
  return { last, fileBytes: st === null ? null : st.isFile() ? st.size : undefined };
}

async function durability(db: Db): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of ['fsync', 'synchronous_commit', 'full_page_writes'] as const) {
    const r = await sql<Record<string, string>>`${sql.raw(`show ${name}`)}`.execute(db);
    out[name] = String(Object.values(r.rows[0] ?? {})[0]);
  }
  return out;
}

/** The database's clock against ours: the closest of three round trips. */
async function clockOffset(db: Db): Promise<{ offsetMs: number; rttMs: number }> {
  let best: { offsetMs: number; rttMs: number } | undefined;
  for (let i = 0; i < 3; i++) {
    const t0 = Date.now();
    const r = await sql<{ ms: number }>`select (extract(epoch from clock_timestamp()) * 1000)::float8 as ms`.execute(db);
    const t1 = Date.now();
    const m = { offsetMs: Number(r.rows[0]!.ms) - (t0 + t1) / 2, rttMs: t1 - t0 };
    if (!best || m.rttMs < best.rttMs) best = m;
  }
  return best!;
}

/** timedatectl's NTPSynchronized; undefined when there is no timedatectl (containers, other systems): never a failure. */
function ntpSynchronized(): Promise<boolean | undefined> {
  return new Promise((resolve) => {
    execFile('timedatectl', ['show', '-p', 'NTPSynchronized', '--value'], { timeout: 3000 }, (err, stdout) => {
      const v = String(stdout ?? '').trim();
      resolve(err || !/^(yes|no)$/.test(v) ? undefined : v === 'yes');
    });
  });
}

async function gather(env: Record<string, string | undefined>): Promise<PreflightFacts> {
  const facts: PreflightFacts = { now: Date.now(), env };
  let config: Config;
  try {
    config = loadConfig(env, { priceSources: false });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    facts.settingsError = err.message;
    // A bad bearer token has its own line (judged from the environment): the rest is still checked without it.
    try {
      config = loadConfig({ ...env, ADMIN_TOKEN: undefined, METRICS_TOKEN: undefined }, { priceSources: false });
    } catch {
      return facts;
    }
  }
  facts.config = config;
  facts.pricingProblem = steamPricingProblem({ ...config, platform: 'steam' }); // judged as it would go live
  facts.priceBookIsSandboxCopy = config.priceBookSource ? await isSandboxBookCopy(config.priceBookSource) : false;
  const log = pino({ level: 'silent' });
  const { probePriceSources } = await import('../modules/pricing/source-probe.js');
  const [prices, ntp] = await Promise.all([probePriceSources(config, log), ntpSynchronized()]);
  facts.prices = prices;
  facts.ntpSynchronized = ntp;

  try {
    const { openCliContext } = await import('./context.js');
    const ctx = await openCliContext(config, env);
    try {
      facts.bots = (await ctx.bots.list(1000, 0)).map((b): BotFact => ({
        id: b.id,
        name: b.name,
        enabled: b.enabled,
        status: b.status,
        signed_in: b.signed_in,
        last_authenticated_at: b.last_authenticated_at,
        session_error: b.session_error,
        trade_state_reason: b.trade_state_reason,
        trade_protection_acknowledged_at: b.trade_protection_acknowledged_at,
      }));
      facts.durability = await durability(ctx.db);
      facts.clock = await clockOffset(ctx.db);
    } finally {
      await ctx.close();
    }
  } catch (err) {
    facts.databaseError = (err as Error).message;
  }

  if (!config.databaseUrl) facts.backup = await readLastBackup(config.dataDir);
  if (config.botSecretsKey) {
    const backupDir = facts.backup?.last ? path.dirname(path.resolve(config.dataDir, facts.backup.last.path)) : undefined;
    facts.secretsKeyFoundIn = await filesHolding(config.botSecretsKey, [config.dataDir, ...(backupDir ? [backupDir] : [])], [path.join(config.dataDir, 'pg')]);
  }
  facts.now = Date.now();
  return facts;
}

/** The items for this environment (tests call it in process; the command prints them). */
export async function doctor(env: Record<string, string | undefined> = process.env): Promise<PreflightItem[]> {
  return preflight(await gather(env));
}

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('check this configuration before it goes live: one line per item (ok, warn, missing, wrong) with what to do; exit 1 when anything blocks going live')
    .action(async () => {
      const json = Boolean(program.opts().json);
      let code = 1;
      try {
        const items = await doctor();
        code = exitCodeOf(items);
        const blocking = items.filter(blocks).length;
        console.log(json ? JSON.stringify({ ok: code === 0, blocking, warnings: items.filter((i) => i.status === 'warn').length, items }, null, 2) : formatPreflight(items));
      } catch (err) {
        console.error(`error: ${(err as Error).message}`);
      }
      // Exit explicitly: the embedded database's exit hook would otherwise end the process with 0.
      process.stdout.write('', () => process.exit(code));
    });
}
