// A consistent physical backup of the embedded cluster (or of an external server running on this
// machine whose data directory the operator names) while it runs and serves, and its restore into a
// new DATA_DIR (or a new server data directory). The package ships no pg_dump (and the machine's older pg_dump refuses a
// newer server), so the backup is PostgreSQL's low-level base backup over an ordinary connection:
//
//   1. on one session, a TEMPORARY physical replication slot reserving WAL at once: the WAL from
//      the backup's start stays in pg_wal until it is copied (a checkpoint would recycle it);
//   2. pg_backup_start(label, fast => true): an immediate checkpoint; its redo point is where
//      recovery of the copy starts;
//   3. the cluster directory copied file by file while the server writes (a torn page is fixed by
//      the full-page images of the WAL replayed over it), leaving out what PostgreSQL's docs say
//      to omit (pg_wal, postmaster.pid, temporary and shared-memory state, …);
//   4. pg_backup_stop(wait_for_archive => false): its label file becomes the copy's backup_label
//      (its tablespace map the tablespace_map, if any);
//   5. the WAL segments from the start's segment through the stop's copied into the copy's pg_wal,
//      everything fsynced, then backup.json (the manifest) written last: a directory without it
//      is an unfinished backup and is not restored.
//
// A start on the restored copy finds backup_label, replays the WAL from the checkpoint to the
// backup's end (all inside pg_wal: no restore_command) and is consistent as of pg_backup_stop:
// every transaction committed before pg_backup_start is in it. See docs/decisions/backups.md.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export const MANIFEST_FILE = 'backup.json';
export const LAST_BACKUP_FILE = 'last-backup.json';
const FILES_DIR = 'data-dir';
const FORMAT = 'gateway-embedded-base-backup-1';

export interface BackupManifest {
  format: typeof FORMAT;
  label: string;
  startedAt: string;
  finishedAt: string;
  startLsn: string;
  stopLsn: string;
  startWal: string;
  stopWal: string;
  serverVersion: string;
  systemIdentifier: string;
  gatewayVersion: string;
  migrations: number;
  files: number;
  bytes: number;
  /** 'external': a DATABASE_URL server's directory (`--server-data-dir`); absent in older manifests: the embedded cluster. */
  source?: 'embedded' | 'external';
}

export interface BackupProgress {
  (bytesDone: number, bytesTotal: number): void;
}

// Relative to the cluster directory: directories whose contents are left out (the directory itself
// is kept: PostgreSQL expects it), and files left out (PostgreSQL docs, "Making a Base Backup Using
// the Low Level API").
const EMPTY_DIRS = new Set(['pg_wal', 'pg_replslot', 'pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_stat_tmp', 'pg_subtrans']);
const SKIP_FILES = new Set(['postmaster.pid', 'postmaster.opts', 'backup_label', 'tablespace_map', 'backup_label.old', 'tablespace_map.old', 'current_logfiles']);
const skipName = (name: string) => name === 'pg_internal.init' || name.startsWith('pgsql_tmp');

const WAL_SEGMENT = /^[0-9A-F]{24}$/;

interface Entry {
  rel: string;
  dir: boolean;
  size: number;
}

/** The files and directories under `root`; `live`: a running cluster's, without what a backup leaves out. */
async function walk(root: string, live: boolean, rel = ''): Promise<Entry[]> {
  const out: Entry[] = [];
  const entries = await fs.readdir(path.join(root, rel), { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return []; // dropped meanwhile
    throw err;
  });
  for (const e of entries) {
    const r = rel ? path.join(rel, e.name) : e.name;
    if (live && (skipName(e.name) || (!rel && SKIP_FILES.has(e.name)))) continue;
    if (e.isSymbolicLink()) throw new Error(`${path.join(root, r)} is a symbolic link (a tablespace?): this backup copies one cluster directory only`);
    if (e.isDirectory()) {
      out.push({ rel: r, dir: true, size: 0 });
      if (!(live && rel === '' && EMPTY_DIRS.has(e.name))) out.push(...(await walk(root, live, r)));
    } else if (e.isFile()) {
      const size = await fs.stat(path.join(root, r)).then((s) => s.size, () => -1);
      if (size >= 0) out.push({ rel: r, dir: false, size });
    }
  }
  return out;
}

async function fsyncPath(p: string): Promise<void> {
  const h = await fs.open(p, 'r');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

/** Copies one file as it is now; a file removed meanwhile (a dropped table) is skipped. Answers its size. */
async function copyFile(from: string, to: string): Promise<number> {
  try {
    await fs.copyFile(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return -1;
    throw err;
  }
  await fs.chmod(to, 0o600);
  await fsyncPath(to);
  return (await fs.stat(to)).size;
}

/** The directory must be missing or empty; it is created 0700 (a backup holds every secret of the database). */
export async function prepareEmptyDir(dir: string, what: string): Promise<void> {
  const entries = await fs.readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (entries && entries.length > 0) throw new Error(`${what} ${dir} is not empty; give a new directory`);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  await fs.chmod(dir, 0o700);
}

/** Writes a file whole or not at all (write, fsync, rename). */
export async function writeFileDurably(file: string, text: string, mode = 0o600): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  const h = await fs.open(tmp, 'w', mode);
  try {
    await h.chmod(mode);
    await h.writeFile(text);
    await h.sync();
  } finally {
    await h.close();
  }
  await fs.rename(tmp, file);
  await fsyncPath(path.dirname(file));
}

export interface CreateBackupOptions {
  /** A superuser connection to the cluster whose directory is `clusterDir`. */
  url: string;
  clusterDir: string;
  /** The server is an external one (DATABASE_URL) whose directory the operator named; recorded in the manifest. */
  external?: boolean;
  target: string;
  gatewayVersion: string;
  /** Files kept with the cluster (DATA_DIR's own: the cluster's password file, …), by name → source path; stored under data-dir/. */
  extraFiles?: Record<string, string>;
  progress?: BackupProgress;
  log?: (msg: string) => void;
}

export async function createBackup(opts: CreateBackupOptions): Promise<BackupManifest> {
  const log = opts.log ?? (() => {});
  const target = path.resolve(opts.target);
  await prepareEmptyDir(target, 'the backup directory');
  const pgOut = path.join(target, 'pg');
  await fs.mkdir(pgOut, { mode: 0o700 });

  const client = new pg.Client({ connectionString: opts.url, application_name: 'gateway backup' });
  client.on('error', () => {});
  await client.connect();
  try {
    const dir = (await client.query<{ d: string }>(`select current_setting('data_directory') as d`)).rows[0]!.d;
    const given = await fs.realpath(opts.clusterDir).catch((err: NodeJS.ErrnoException) => {
      throw new Error(`${opts.clusterDir} cannot be read (${err.code ?? err.message}): give the server's data directory, readable by this user`);
    });
    const served = await fs.realpath(dir).catch(() => dir);
    if (served !== given) throw new Error(`the database answering is on ${dir}, not on ${opts.clusterDir}: refusing to copy another cluster's files`);
    const facts = (
      await client.query<{ v: string; id: string; migrations: string; port: string; started: string }>(
        `select current_setting('server_version') as v, (select system_identifier::text from pg_control_system()) as id,
                (select count(*) from schema_migrations)::text as migrations, current_setting('port') as port,
                extract(epoch from pg_postmaster_start_time())::text as started`,
      )
    ).rows[0]!;
    // The same path can name other files than the server's: seen through another mount (a
    // container's volume), or the directory moved away under the running server and another put in
    // its place. The server reads its pg_control through its own path, so a file the CLI reads
    // through another mount shows another cluster's identifier; and the directory must hold the
    // running postmaster's lock file (its port, its start time), which only the directory the
    // server started in has.
    const onDisk = await systemIdentifierOnDisk(given);
    if (onDisk !== facts.id) {
      throw new Error(`${opts.clusterDir} holds the cluster ${onDisk}, but the database answering is the cluster ${facts.id}: refusing to copy another cluster's files`);
    }
    const lock = await fs.readFile(path.join(given, 'postmaster.pid'), 'utf8').catch(() => undefined);
    if (!lock) throw new Error(`${opts.clusterDir} has no postmaster.pid: no server runs on it, and the database answering does: refusing to copy another cluster's files`);
    const [, , lockStarted, lockPort] = lock.split('\n');
    // postmaster.pid's time is taken a moment before pg_postmaster_start_time(), in whole seconds.
    const lag = Number(facts.started) - Number(lockStarted);
    if (lockPort?.trim() !== facts.port || !(lag > -1 && lag < 60)) {
      throw new Error(`${opts.clusterDir} is locked by a server on port ${lockPort?.trim()} started at ${lockStarted}, not the one answering (port ${facts.port}, started at ${Math.floor(Number(facts.started))}): refusing to copy another cluster's files`);
    }

    const startedAt = new Date().toISOString();
    const label = `gateway backup ${startedAt}`;
    const slot = `gateway_backup_${process.pid}_${randomBytes(4).toString('hex')}`;
    // Temporary: dropped when this session ends, however it ends.
    await client.query(`select pg_create_physical_replication_slot($1, true, true)`, [slot]);
    const startLsn = (await client.query<{ lsn: string }>(`select pg_backup_start($1, fast => true)::text as lsn`, [label])).rows[0]!.lsn;
    log(`backup started at WAL ${startLsn} (checkpoint done)`);

    let stopped = false;
    let files = 0;
    let bytes = 0;
    try {
      const entries = await walk(given, true);
      const total = entries.reduce((n, e) => n + e.size, 0);
      for (const e of entries) {
        const to = path.join(pgOut, e.rel);
        if (e.dir) {
          await fs.mkdir(to, { recursive: true, mode: 0o700 });
          continue;
        }
        const size = await copyFile(path.join(given, e.rel), to);
        if (size < 0) continue;
        files++;
        bytes += size;
        opts.progress?.(bytes, Math.max(total, bytes));
      }

      const stop = (
        await client.query<{ lsn: string; labelfile: string; spcmapfile: string | null; wal: string }>(
          `select lsn::text as lsn, labelfile, spcmapfile, pg_walfile_name(lsn) as wal from pg_backup_stop(wait_for_archive => false)`,
        )
      ).rows[0]!;
      stopped = true;
      await writeFileDurably(path.join(pgOut, 'backup_label'), stop.labelfile);
      if (stop.spcmapfile) await writeFileDurably(path.join(pgOut, 'tablespace_map'), stop.spcmapfile);
      const startWal = /START WAL LOCATION: .* \(file ([0-9A-F]{24})\)/.exec(stop.labelfile)?.[1];
      if (!startWal) throw new Error(`pg_backup_stop answered a label without its start segment: ${stop.labelfile}`);

      // The WAL from the start's segment through the stop's (the slot kept it). Same timeline:
      // the names order as the segments do.
      const walDir = path.join(given, 'pg_wal');
      const segments = (await fs.readdir(walDir)).filter((n) => WAL_SEGMENT.test(n) && n >= startWal && n <= stop.wal).sort();
      if (segments[0] !== startWal || segments.at(-1) !== stop.wal) {
        throw new Error(`the WAL from ${startWal} to ${stop.wal} is not all in ${walDir} (found ${segments[0] ?? 'none'}…${segments.at(-1) ?? ''})`);
      }
      for (const n of [...segments, ...(await fs.readdir(walDir)).filter((h) => h.endsWith('.history'))]) {
        const size = await copyFile(path.join(walDir, n), path.join(pgOut, 'pg_wal', n));
        if (size < 0) throw new Error(`WAL segment ${n} vanished while copied`);
        files++;
        bytes += size;
      }
      await fs.mkdir(path.join(pgOut, 'pg_wal', 'archive_status'), { recursive: true, mode: 0o700 });
      await client.query(`select pg_drop_replication_slot($1)`, [slot]);

      await fs.mkdir(path.join(target, FILES_DIR), { mode: 0o700 });
      for (const [name, from] of Object.entries(opts.extraFiles ?? {})) {
        const size = await copyFile(from, path.join(target, FILES_DIR, name));
        if (size >= 0) bytes += size;
      }
      await fsyncPath(path.join(target, FILES_DIR));
      // Directories: every one fsynced, so a crash after the manifest leaves no entry unnamed.
      for (const e of entries) if (e.dir) await fsyncPath(path.join(pgOut, e.rel));
      for (const d of [path.join(pgOut, 'pg_wal'), pgOut, target]) await fsyncPath(d);

      const manifest: BackupManifest = {
        format: FORMAT,
        label,
        startedAt,
        finishedAt: new Date().toISOString(),
        startLsn,
        stopLsn: stop.lsn,
        startWal,
        stopWal: stop.wal,
        serverVersion: facts.v,
        systemIdentifier: facts.id,
        gatewayVersion: opts.gatewayVersion,
        migrations: Number(facts.migrations),
        files,
        bytes,
        source: opts.external ? 'external' : 'embedded',
      };
      await writeFileDurably(path.join(target, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
      log(`backup finished at WAL ${stop.lsn}: ${files} files, ${bytes} bytes`);
      return manifest;
    } finally {
      if (!stopped) await client.query(`select pg_backup_stop(wait_for_archive => false)`).catch(() => {});
    }
  } finally {
    await client.end().catch(() => {});
  }
}

/** The system identifier in `<clusterDir>/global/pg_control`: its first field, a uint64 in the machine's byte order. */
export async function systemIdentifierOnDisk(clusterDir: string): Promise<string> {
  const file = path.join(clusterDir, 'global', 'pg_control');
  const bytes = await fs.readFile(file).catch((err: NodeJS.ErrnoException) => {
    throw new Error(`${file} cannot be read (${err.code ?? err.message}): give the server's data directory, readable by this user (as root, or as the user the server runs as)`);
  });
  if (bytes.length < 8) throw new Error(`${file} is not a PostgreSQL control file`);
  return (os.endianness() === 'LE' ? bytes.readBigUInt64LE(0) : bytes.readBigUInt64BE(0)).toString();
}

export async function readManifest(dir: string): Promise<BackupManifest> {
  const text = await fs.readFile(path.join(dir, MANIFEST_FILE), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new Error(`${dir} holds no finished backup (no ${MANIFEST_FILE}: the backup did not finish, or this is not a backup directory)`);
    throw err;
  });
  const m = JSON.parse(text) as BackupManifest;
  if (m.format !== FORMAT) throw new Error(`${path.join(dir, MANIFEST_FILE)} is not a backup of this gateway's format (${String(m.format)})`);
  return m;
}

export interface RestoreOptions {
  source: string;
  /** The cluster directory to make (DATA_DIR/pg); it must not exist. */
  clusterDir: string;
  /** Where the files kept with the cluster (data-dir/ of the backup) go: the new DATA_DIR. */
  filesTo?: string;
  /** Owner of the restored cluster when it is not this process's user (root runs PostgreSQL as `postgres`). */
  owner?: { uid: number; gid: number };
  progress?: BackupProgress;
}

/**
 * Copies a finished backup into a new cluster directory (made under a temporary name, renamed when
 * whole), owned by the user PostgreSQL runs as, 0700. Its first start replays the WAL to the
 * backup's end.
 */
export async function restoreBackup(opts: RestoreOptions): Promise<BackupManifest> {
  const source = path.resolve(opts.source);
  const manifest = await readManifest(source);
  const from = path.join(source, 'pg');
  const clusterDir = path.resolve(opts.clusterDir);
  if (await fs.access(clusterDir).then(() => true, () => false)) throw new Error(`${clusterDir} exists; restore into a new directory`);
  const partial = `${clusterDir}.restoring`;
  await fs.rm(partial, { recursive: true, force: true });
  const entries = await walk(from, false);
  const total = entries.reduce((n, e) => n + e.size, 0);
  let done = 0;
  const own = async (p: string) => {
    if (opts.owner) await fs.chown(p, opts.owner.uid, opts.owner.gid);
  };
  await fs.mkdir(partial, { mode: 0o700 });
  for (const e of entries) {
    const to = path.join(partial, e.rel);
    if (e.dir) await fs.mkdir(to, { recursive: true, mode: 0o700 });
    else {
      const size = await copyFile(path.join(from, e.rel), to);
      if (size < 0) throw new Error(`${path.join(from, e.rel)} vanished while restored`);
      done += size;
      opts.progress?.(done, total);
    }
    await own(to);
  }
  if (!(await fs.access(path.join(partial, 'backup_label')).then(() => true, () => false))) throw new Error(`${from} has no backup_label`);
  await fs.chmod(partial, 0o700);
  await own(partial);
  for (const e of entries) if (e.dir) await fsyncPath(path.join(partial, e.rel));
  await fsyncPath(partial);
  if (opts.filesTo) {
    for (const name of await fs.readdir(path.join(source, FILES_DIR)).catch(() => [])) await copyFile(path.join(source, FILES_DIR, name), path.join(opts.filesTo, name));
  }
  await fs.rename(partial, clusterDir);
  await fsyncPath(path.dirname(clusterDir));
  return manifest;
}
