// The backup drill: a real gateway on its own embedded DATA_DIR serves a burst of purchases and
// top-ups; `gateway backup create` runs while the burst goes on; the backup is restored into a new
// DATA_DIR with `gateway backup restore`; a gateway started on the restored copy has every write
// acknowledged before the backup began, `gateway ledger verify` is clean, and `gateway reconcile`
// (the documented first step after a restore) runs on it. Also: the refusals (a non-empty target,
// an external DATABASE_URL, an unfinished backup).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedUrl, freePort } from '../../src/db/embedded.js';
import { backupDuringBurst, cli, expectAcknowledgedWrites, expectLedgerClean, openShop } from './backup-drill-steps.js';
import { http, processesWith, ready, spawnGateway, waitFor, type GatewayProcess } from './gateway-process.js';

const started: GatewayProcess[] = [];
let root = '';
afterAll(async () => {
  for (const g of started) g.killGroup();
  if (root) await waitFor(() => processesWith(root).length === 0, 15_000, 'the gateways to be gone');
  if (root) await fs.rm(root, { recursive: true, force: true });
});

describe('backup drill', () => {
  it('a backup taken during a burst restores into a new DATA_DIR with every write acknowledged before it began; ledger verify clean; reconcile runs', async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-backup-drill-'));
    await fs.chmod(root, 0o755); // the postgres user must enter it
    const dataDir = path.join(root, 'data');
    const backupDir = path.join(root, 'backup');
    const restored = path.join(root, 'restored');

    const gw = await ready(spawnGateway({ dataDir, port: await freePort() }));
    started.push(gw);
    const shop = await openShop(gw.url, 'Drill shop');
    const m = shop.merchant;

    // The burst: top-ups and purchases, each recorded once the gateway acknowledged it; the
    // backup taken while it goes on.
    const drill = await backupDuringBurst(gw.url, shop, 'drill', () => cli({ DATA_DIR: dataDir }, 'backup', 'create', backupDir));
    const { backup, topUpsBefore, purchasesBefore, acknowledgedDuring } = drill;
    expect(backup.code, backup.err).toBe(0);
    const manifest = JSON.parse(backup.out);
    console.log(`backup: ${topUpsBefore.length} top-ups and ${purchasesBefore.size} purchases acknowledged before it, ${acknowledgedDuring} writes during it; ${manifest.files} files, ${manifest.bytes} bytes`);
    expect(manifest).toMatchObject({ path: backupDir, serverVersion: expect.stringMatching(/^18\./), gatewayVersion: expect.any(String) });
    expect(manifest.migrations).toBeGreaterThan(0);
    expect(manifest.bytes).toBeGreaterThan(0);
    // It ran while the gateway served: writes were acknowledged while it copied.
    expect(acknowledgedDuring).toBeGreaterThan(0);
    expect(backup.err).toMatch(/backup: bytes copied/); // progress on stderr
    const last = JSON.parse(await fs.readFile(path.join(dataDir, 'last-backup.json'), 'utf8'));
    expect(last).toEqual({ at: manifest.finishedAt, path: backupDir, bytes: manifest.bytes });
    expect(new Date(last.at).toISOString()).toBe(last.at);
    expect((await fs.stat(backupDir)).mode & 0o777).toBe(0o700); // it holds the database's secrets

    // Refusals: a non-empty backup directory, an external database, a non-empty restore target,
    // a directory holding no finished backup.
    const again = await cli({ DATA_DIR: dataDir }, 'backup', 'create', backupDir);
    expect(again.code).toBe(1);
    expect(again.err).toContain(`the backup directory ${backupDir} is not empty`);
    const external = await cli({ DATA_DIR: dataDir, DATABASE_URL: (await embeddedUrl(dataDir))! }, 'backup', 'create', path.join(root, 'external'));
    expect(external.code).toBe(1);
    expect(external.err).toMatch(/external PostgreSQL.*pg_dump.*pg_basebackup with WAL archiving/);
    const occupied = await cli({}, 'backup', 'restore', backupDir, '--data-dir', dataDir);
    expect(occupied.code).toBe(1);
    expect(occupied.err).toContain(`the new DATA_DIR ${dataDir} is not empty`);
    const unfinished = path.join(root, 'unfinished');
    await fs.mkdir(path.join(unfinished, 'pg'), { recursive: true });
    const notABackup = await cli({}, 'backup', 'restore', unfinished, '--data-dir', path.join(root, 'nowhere'));
    expect(notABackup.code).toBe(1);
    expect(notABackup.err).toContain('holds no finished backup');

    // The source gateway goes away (a lost machine); the backup is restored into a new DATA_DIR.
    gw.killGroup();
    await gw.exited;
    const restore = await cli({}, 'backup', 'restore', backupDir, '--data-dir', restored);
    expect(restore.code, restore.err).toBe(0);
    expect(JSON.parse(restore.out)).toMatchObject({ dataDir: restored, stopLsn: manifest.stopLsn });
    const pgDir = await fs.stat(path.join(restored, 'pg'));
    expect(pgDir.mode & 0o777).toBe(0o700);
    if (os.userInfo().uid === 0) expect(pgDir.uid).not.toBe(0); // PostgreSQL's own user owns it

    const gw2 = await ready(spawnGateway({ dataDir: restored, port: await freePort() }));
    started.push(gw2);
    // The documented first step after a restore, then the ledger.
    const reconcile = await cli({ DATA_DIR: restored }, 'reconcile');
    expect(reconcile.out, reconcile.err).toMatch(/"total"/);
    await expectLedgerClean({ DATA_DIR: restored });

    // Every write acknowledged before the backup began is in the restored database.
    await expectAcknowledgedWrites((await embeddedUrl(restored))!, m.id, drill);
    // And the restored gateway serves: a new write is acknowledged.
    expect((await http(gw2.url, 'POST', `/api/admin/merchants/${m.id}/top-ups`, { admin: true, body: { amount: 1, reference: 'after-restore' } })).status).toBe(201);
  }, 400_000);
});
