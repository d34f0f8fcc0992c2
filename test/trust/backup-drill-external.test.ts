// The backup drill against an external PostgreSQL: a real PostgreSQL 18 server of the test's own
// (the project's binaries) on this machine; a gateway process with DATABASE_URL pointing at it
// serves a burst of purchases and top-ups; `gateway backup create --server-data-dir <its data
// directory>` runs during the burst; `gateway backup restore --server-data-dir <new>` makes a new
// server directory, a server started on it with pg_ctl, a gateway on that: every write acknowledged
// before the backup began is there and `gateway ledger verify` is clean. Also the refusals: an
// external URL without the flag (naming the standard tools and the flag), a directory that is not
// the server's (another path; the server's path holding another cluster), an external backup
// restored as a DATA_DIR.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/embedded.js';
import { backupDuringBurst, cli, expectAcknowledgedWrites, expectLedgerClean, openShop } from './backup-drill-steps.js';
import { http, processesWith, ready, spawnGateway, waitFor, type GatewayProcess } from './gateway-process.js';
import { createDatabase, createPgServer, openPgServer, type PgServer } from './pg-server.js';

const started: GatewayProcess[] = [];
const servers: PgServer[] = [];
let root = '';
afterAll(async () => {
  for (const g of started) g.killGroup();
  for (const s of servers) await s.stop('immediate').catch(() => {});
  if (root) await waitFor(() => processesWith(root).length === 0, 15_000, 'the gateways and servers to be gone');
  if (root) await fs.rm(root, { recursive: true, force: true });
});

describe('backup drill, external PostgreSQL', () => {
  it('a backup of a DATABASE_URL server on this machine taken during a burst restores into a new server directory with every write acknowledged before it began; ledger verify clean', async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-backup-ext-'));
    await fs.chmod(root, 0o755); // the postgres user must enter it
    const source = await createPgServer(root, 'source');
    servers.push(source);
    await source.start();
    const dbUrl = await createDatabase(source, 'gateway');
    const backupDir = path.join(root, 'backup');
    const restoredDir = path.join(root, 'restored');

    const gw = await ready(spawnGateway({ dataDir: path.join(root, 'gw-data'), port: await freePort(), env: { DATABASE_URL: dbUrl } }));
    started.push(gw);
    const shop = await openShop(gw.url, 'External drill shop');
    const m = shop.merchant;

    // Refusals, before the burst: no flag (the standard tools and the flag named); a directory
    // that is not the answering server's (another cluster on this machine).
    const noFlag = await cli({ DATABASE_URL: dbUrl }, 'backup', 'create', path.join(root, 'refused-1'));
    expect(noFlag.code).toBe(1);
    expect(noFlag.err).toMatch(/external PostgreSQL.*pg_dump.*pg_basebackup with WAL archiving.*--server-data-dir/);
    const other = await createPgServer(root, 'other'); // initdb'd, never started
    const wrongDir = await cli({ DATABASE_URL: dbUrl }, 'backup', 'create', path.join(root, 'refused-2'), '--server-data-dir', other.dir);
    expect(wrongDir.code).toBe(1);
    expect(wrongDir.err).toContain(`the database answering is on ${source.dir}, not on ${other.dir}`);
    const missing = await cli({ DATABASE_URL: dbUrl }, 'backup', 'create', path.join(root, 'refused-3'), '--server-data-dir', path.join(root, 'nowhere'));
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('cannot be read (ENOENT)');

    // The burst: top-ups and purchases, each recorded once the gateway acknowledged it; the
    // backup taken while it goes on.
    const drill = await backupDuringBurst(gw.url, shop, 'xdrill', () => cli({ DATABASE_URL: dbUrl }, 'backup', 'create', backupDir, '--server-data-dir', source.dir));
    const { backup, topUpsBefore, purchasesBefore, acknowledgedDuring } = drill;
    expect(backup.code, backup.err).toBe(0);
    const manifest = JSON.parse(backup.out);
    console.log(`external backup: ${topUpsBefore.length} top-ups and ${purchasesBefore.size} purchases acknowledged before it, ${acknowledgedDuring} writes during it; ${manifest.files} files, ${manifest.bytes} bytes`);
    expect(manifest).toMatchObject({ path: backupDir, serverDataDir: source.dir, source: 'external', serverVersion: expect.stringMatching(/^18\./) });
    expect(manifest.migrations).toBeGreaterThan(0);
    expect(acknowledgedDuring).toBeGreaterThan(0); // it ran while the gateway served
    expect((await fs.stat(backupDir)).mode & 0o777).toBe(0o700);

    // The source goes away (a lost machine).
    gw.killGroup();
    await gw.exited;
    await source.stop('immediate');

    // An external backup is not a gateway DATA_DIR; it restores into a new server directory.
    const asDataDir = await cli({}, 'backup', 'restore', backupDir, '--data-dir', path.join(root, 'not-a-data-dir'));
    expect(asDataDir.code).toBe(1);
    expect(asDataDir.err).toContain('is a backup of an external server: restore it with --server-data-dir');
    const restore = await cli({}, 'backup', 'restore', backupDir, '--server-data-dir', restoredDir);
    expect(restore.code, restore.err).toBe(0);
    expect(JSON.parse(restore.out)).toMatchObject({ serverDataDir: restoredDir, stopLsn: manifest.stopLsn });
    const st = await fs.stat(restoredDir);
    expect(st.mode & 0o777).toBe(0o700);
    if (os.userInfo().uid === 0) expect(st.uid).not.toBe(0); // PostgreSQL's own user owns it
    await expect(fs.access(path.join(restoredDir, 'backup_label'))).resolves.toBeUndefined();

    // The operator's own pg_ctl starts it (the first start replays the backup's WAL); a gateway on it.
    const restored = await openPgServer(root, 'restored');
    servers.push(restored);
    await restored.start();
    const restoredUrl = restored.url('gateway');
    const gw2 = await ready(spawnGateway({ dataDir: path.join(root, 'gw-data-2'), port: await freePort(), env: { DATABASE_URL: restoredUrl } }));
    started.push(gw2);
    await expectLedgerClean({ DATABASE_URL: restoredUrl });
    await expectAcknowledgedWrites(restoredUrl, m.id, drill);
    expect((await http(gw2.url, 'POST', `/api/admin/merchants/${m.id}/top-ups`, { admin: true, body: { amount: 1, reference: 'after-restore' } })).status).toBe(201);

    // The path alone does not make the directory the server's: the restored server's directory
    // moved aside while it runs (it works on inside it) and another cluster put at its path. The
    // server's pg_control_system() reads that path too, so the lock file is what tells: the other
    // cluster has none (no server runs on it), and the backup is refused before it starts.
    await fs.rename(restoredDir, `${restoredDir}-moved`);
    await fs.rename(other.dir, restoredDir);
    try {
      const replaced = await cli({ DATABASE_URL: restoredUrl }, 'backup', 'create', path.join(root, 'refused-4'), '--server-data-dir', restoredDir);
      expect(replaced.code).toBe(1);
      expect(replaced.err).toContain(`${restoredDir} has no postmaster.pid: no server runs on it`);
    } finally {
      await fs.rename(restoredDir, other.dir);
      await fs.rename(`${restoredDir}-moved`, restoredDir);
    }
  }, 400_000);
});
