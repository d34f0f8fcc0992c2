// The CLI's database: DATABASE_URL, else the embedded cluster under DATA_DIR — the running
// gateway's if it is up (its port is remembered in DATA_DIR), otherwise started for the command.
import { CommitTaps } from '../db/commit-taps.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { PUBLIC_URL_FILE, type Config } from '../config.js';
import { createDb, createPool } from '../db/database.js';
import { runningEmbeddedUrl, startEmbeddedPostgres, type EmbeddedDb } from '../db/embedded.js';
import { migrate } from '../db/migrate.js';
import { createContext, type AppContext } from '../assembly/context.js';
import { loadPlatformAdapter } from '../platform/index.js';
import { systemClock } from '../domain/clock.js';

export type CliContext = AppContext & { close(): Promise<void> };


function shown(dir: string): string {
  const rel = path.relative(process.cwd(), dir);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? `./${rel}` : dir;
}

async function isGatewayDatabase(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await c.connect();
  try {
    return (await c.query(`select to_regclass('public.schema_migrations') is not null as ok`)).rows[0].ok === true;
  } finally {
    await c.end();
  }
}

/** The CLI works on a gateway's database and never makes one: a wrong DATA_DIR is an error (its message is the CLI's one line), not an empty database. */
export async function openCliContext(config: Config, env: Record<string, string | undefined> = process.env): Promise<CliContext> {
  let url = config.databaseUrl;
  let embedded: EmbeddedDb | undefined;
  if (!url) {
    if (!(await fs.access(path.join(config.dataDir, 'pg', 'PG_VERSION')).then(() => true, () => false))) {
      throw new Error(`no gateway database in ${shown(config.dataDir)} — set DATA_DIR or DATABASE_URL to the gateway's`);
    }
    if (!env.PUBLIC_URL) {
      const recorded = await fs.readFile(path.join(config.dataDir, PUBLIC_URL_FILE), 'utf8').then((s) => s.trim(), () => '');
      if (recorded) config = { ...config, publicUrl: recorded };
    }
    const running = await runningEmbeddedUrl(config.dataDir); // its password from DATA_DIR/pg-password
    if (running) url = running;
    else {
      embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort });
      url = embedded.url;
    }
  } else if (!(await isGatewayDatabase(url))) {
    throw new Error('no gateway database at DATABASE_URL (no schema_migrations) — set DATA_DIR or DATABASE_URL to the gateway\'s');
  }
  const pool = createPool(url, 5);
  // Nothing in the CLI listens to commits: its job rows and webhook events are moved by the
  // running gateways' relay and dispatchers (their polls).
  const commitTaps = new CommitTaps();
  const db = createDb(pool, commitTaps);
  await migrate(pool);
  await loadPlatformAdapter(config);
  const ctx = createContext({ config, db, pool, commitTaps, clock: systemClock, log: pino({ level: 'warn' }, pino.destination(2)) }); // stdout is the command's answer (--json); logs go to stderr
  return Object.assign(ctx, {
    async close() {
      await ctx.pricing.stop(); // price bases computed for the command are written before the pool closes
      await db.destroy();
      await embedded?.stop();
    },
  });
}
