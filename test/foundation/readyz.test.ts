// /readyz reports the database: 503 in the envelope while it cannot be reached, 200 once it can.
import pg from 'pg';
import { inject } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
let dbName: string;
let admin: pg.Client;

beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  dbName = new URL(gw.databaseUrl).pathname.slice(1);
  admin = new pg.Client({ connectionString: inject('pgServerUrl') });
  await admin.connect();
});
afterAll(async () => {
  await admin.query(`alter database ${dbName} allow_connections true`).catch(() => {});
  await admin.end();
  await gw?.stop();
});

describe('/readyz', () => {
  it('answers 503 database unreachable while the database refuses connections, then 200 again', async () => {
    expect((await gw.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);

    await admin.query(`alter database ${dbName} allow_connections false`);
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [dbName]);
    const down = await gw.app.inject({ method: 'GET', url: '/readyz' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({ success: false, message: 'database unreachable', data: { database: 'down' } });
    // Liveness does not depend on the database.
    expect((await gw.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

    await admin.query(`alter database ${dbName} allow_connections true`);
    // Connections cut while it was down are replaced on the next checks.
    await eventually(async () => (await gw.app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200, 5000);
  });
});
