// The steps both backup drills (embedded DATA_DIR and external PostgreSQL) take: the CLI run from
// the sources, a merchant with money and listings, a burst of top-ups and purchases that records
// what the gateway acknowledged, a backup taken during the burst, and the checks on the restored
// copy (every write acknowledged before the backup began is there; the ledger verifies clean).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { expect } from 'vitest';
import { http, waitFor } from './gateway-process.js';

const exec = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** The CLI from the sources, as the gateway children run (tsx); `env` on top of an empty DATABASE_URL. */
export async function cli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  try {
    const r = await exec(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', '--json', ...args], {
      env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent', SANDBOX_CATALOGUE_SIZE: '0', ...env },
      maxBuffer: 64 << 20,
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e: any) {
    return { code: e.code as number, out: e.stdout as string, err: e.stderr as string };
  }
}

export interface DrillShop {
  merchant: { id: number; api_key: string };
  /** Asset ids the merchant can buy; the burst takes them from the end. */
  listings: string[];
}

/** A merchant named `name` with a 100,000 top-up, and the full csgo listing it may buy from. */
export async function openShop(url: string, name: string): Promise<DrillShop> {
  const created = await http(url, 'POST', '/api/admin/merchants', { admin: true, body: { name } });
  expect(created.status).toBe(201);
  const merchant = created.body.data as { id: number; api_key: string };
  expect((await http(url, 'POST', `/api/admin/merchants/${merchant.id}/top-ups`, { admin: true, body: { amount: 100_000, reference: 'initial' } })).status).toBe(201);
  const available = await http(url, 'GET', '/api/v1/merchant/purchase/available?game=csgo&full=true', { key: merchant.api_key, timeoutMs: 60_000 });
  expect(available.status).toBe(200);
  const listings = (available.body.data.items as { id: string }[]).map((i) => i.id);
  return { merchant, listings };
}

export interface BackupDuringBurst {
  backup: CliResult;
  /** Top-up references acknowledged (201) before the backup began. */
  topUpsBefore: string[];
  /** Purchases (merchant_tx_id → id) acknowledged (200) before the backup began. */
  purchasesBefore: Map<string, number>;
  /** Writes acknowledged while the backup ran. */
  acknowledgedDuring: number;
}

/**
 * The burst: two loops of top-ups and two of purchases (references and merchant_tx_ids
 * `${prefix}-t<n>` / `${prefix}-p<n>`), each recorded once the gateway acknowledged it. Once it is
 * under way (10 top-ups, 5 purchases) `takeBackup` runs; the burst stops when it returns.
 */
export async function backupDuringBurst(url: string, shop: DrillShop, prefix: string, takeBackup: () => Promise<CliResult>): Promise<BackupDuringBurst> {
  const { merchant: m, listings } = shop;
  const topUps: string[] = [];
  const purchases = new Map<string, number>();
  let stopped = false;
  let seq = 0;
  const loops = [0, 1, 2, 3].map(async (i) => {
    while (!stopped) {
      try {
        if (i % 2 === 0) {
          const reference = `${prefix}-t${++seq}`;
          const r = await http(url, 'POST', `/api/admin/merchants/${m.id}/top-ups`, { admin: true, body: { amount: 1.25, reference } });
          if (r.status === 201) topUps.push(reference);
        } else {
          const asset = listings.pop();
          if (!asset) return;
          const tx = `${prefix}-p${++seq}`;
          const r = await http(url, 'POST', '/api/v1/merchant/purchase', { key: m.api_key, body: { game: 'csgo', partner: 12345678, token: 'abcdefgh', asset_id: asset, merchant_tx_id: tx } });
          if (r.status === 200) purchases.set(tx, r.body.data.id);
        }
      } catch {
        await sleep(50);
      }
    }
  });
  await waitFor(() => topUps.length >= 10 && purchases.size >= 5, 60_000, 'the burst to be under way');

  const topUpsBefore = [...topUps];
  const purchasesBefore = new Map(purchases);
  const backup = await takeBackup();
  const acknowledgedDuring = topUps.length - topUpsBefore.length + purchases.size - purchasesBefore.size;
  stopped = true;
  await Promise.all(loops);
  return { backup, topUpsBefore, purchasesBefore, acknowledgedDuring };
}

/** `gateway ledger verify` on the restored copy exits 0 with no mismatches. */
export async function expectLedgerClean(env: Record<string, string>): Promise<void> {
  const verify = await cli(env, 'ledger', 'verify');
  expect(verify.code, verify.err).toBe(0);
  expect(JSON.parse(verify.out)).toMatchObject({ ok: true, mismatches: [] });
}

/** Every top-up and purchase acknowledged before the backup began is in the database at `connectionString`. */
export async function expectAcknowledgedWrites(connectionString: string, merchantId: number, drill: Pick<BackupDuringBurst, 'topUpsBefore' | 'purchasesBefore'>): Promise<void> {
  const db = new pg.Client({ connectionString });
  await db.connect();
  try {
    const refs = new Set((await db.query('select reference from top_ups where merchant_id = $1', [merchantId])).rows.map((r) => r.reference));
    for (const ref of drill.topUpsBefore) expect(refs.has(ref), `top-up ${ref}`).toBe(true);
    const bought = new Map((await db.query('select merchant_tx_id, id::int8 as id from purchases where merchant_id = $1', [merchantId])).rows.map((r) => [r.merchant_tx_id, Number(r.id)]));
    for (const [tx, id] of drill.purchasesBefore) expect(bought.get(tx), `purchase ${tx}`).toBe(id);
  } finally {
    await db.end();
  }
}
