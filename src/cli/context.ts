// The CLI's database: DATABASE_URL, else the embedded cluster under DATA_DIR — the running
// gateway's if it is up (its port is remembered in DATA_DIR), otherwise started for the command.
import { CommitTaps } from '../db/commit-taps.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import type { Config } from '../config.js';
import { createDb, createPool } from '../db/database.js';
import { startEmbeddedPostgres, type EmbeddedDb } from '../db/embedded.js';
import { migrate } from '../db/migrate.js';
import { createContext, type AppContext } from '../context.js';
import { loadPlatformAdapter } from '../platform/index.js';
import { systemClock } from '../domain/clock.js';

export type CliContext = AppContext & { close(): Promise<void> };

async function canConnect(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

export async function openCliContext(config: Config): Promise<CliContext> {
  let url = config.databaseUrl;
  let embedded: EmbeddedDb | undefined;
  if (!url) {
    const portFile = path.join(config.dataDir, 'pg-port');
    const port = await fs.readFile(portFile, 'utf8').then((s) => Number(s.trim()), () => undefined);
    const running = port ? `postgres://postgres:gateway@127.0.0.1:${port}/postgres` : undefined;
    if (running && (await canConnect(running))) url = running;
    else {
      embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort });
      url = embedded.url;
    }
  }
  const pool = createPool(url, 5);
  // Nothing in the CLI listens to commits: its job rows and webhook events are moved by the
  // running gateways' relay and dispatchers (their polls).
  const commitTaps = new CommitTaps();
  const db = createDb(pool, commitTaps);
  await migrate(pool);
  await loadPlatformAdapter(config);
  const ctx = createContext({ config, db, pool, commitTaps, clock: systemClock, log: pino({ level: 'warn' }) });
  return Object.assign(ctx, {
    async close() {
      await db.destroy();
      await embedded?.stop();
    },
  });
}
