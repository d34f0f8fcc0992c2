// One real PostgreSQL for the whole run: the embedded one (under .test-data/), or TEST_DATABASE_URL.
// A template database with every migration applied lets each test file get a fresh copy in ~100 ms.
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedDb } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';

let embedded: EmbeddedDb | undefined;

export const TEMPLATE_DB = 'gateway_test_template';

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export default async function setup(project: TestProject) {
  let serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const dataDir = path.resolve('.test-data');
    await fs.rm(dataDir, { recursive: true, force: true });
    embedded = await startEmbeddedPostgres({ dataDir });
    serverUrl = embedded.url;
  }
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${TEMPLATE_DB}`);
  await admin.query(`create database ${TEMPLATE_DB}`);
  const pool = new pg.Pool({ connectionString: withDatabase(serverUrl, TEMPLATE_DB), max: 2 });
  await migrate(pool);
  await pool.end();
  await admin.end();
  project.provide('pgServerUrl', serverUrl);
  return async () => {
    await embedded?.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgServerUrl: string;
  }
}
