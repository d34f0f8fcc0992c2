// The per-instance API key cache (key-cache.ts): served from memory, invalidated on every instance
// by NOTIFY on each merchant change, flushed when the notification connection drops.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
let second: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
  second = await startTestGateway({}, { databaseUrl: gw.databaseUrl, worker: false });
  await eventually(async () => gw.app.merchantKeys.listening && second.app.merchantKeys.listening);
});
afterAll(async () => {
  await second?.stop();
  await gw?.stop();
});

const balance = (g: TestGateway, key: string) => g.merchant(key, 'GET', '/balance');
/** A notification crosses a socket: the second instance must see the change within a moment. */
const soon = <T,>(fn: () => Promise<T | undefined | false>) => eventually(fn, 1000, 5);

/** Runs SQL with triggers off (session_replication_role = replica): a change whose notification is lost. */
async function silently(query: string, params: unknown[]) {
  const c = new pg.Client({ connectionString: gw.databaseUrl });
  await c.connect();
  try {
    await c.query('set session_replication_role = replica');
    await c.query(query, params);
  } finally {
    await c.end();
  }
}

describe('API key cache across instances', () => {
  it('serves a known key from memory: a change without a notification is not seen', async () => {
    const m = await gw.createMerchant({ name: 'Cached' });
    expect((await balance(second, m.api_key)).status).toBe(200);
    await silently('update merchants set enabled = false where id = $1', [m.id]);
    // no database read on the hot path: the cached row still says enabled
    expect((await balance(second, m.api_key)).status).toBe(200);
  });

  it('a disable on one instance is seen by the other; re-enabling too', async () => {
    const m = await gw.createMerchant({ name: 'Disabled later' });
    expect((await balance(second, m.api_key)).status).toBe(200);
    expect((await gw.admin('PATCH', `/merchants/${m.id}`, { enabled: false })).status).toBe(200);
    const res = await soon(async () => {
      const r = await balance(second, m.api_key);
      return r.status === 403 ? r : undefined;
    });
    expect(res.body).toEqual({ success: false, message: 'merchant account is disabled' });
    expect((await gw.admin('PATCH', `/merchants/${m.id}`, { enabled: true })).status).toBe(200);
    await soon(async () => (await balance(second, m.api_key)).status === 200);
  });

  it('a whitelist change on one instance is seen by the other', async () => {
    const m = await gw.createMerchant({ name: 'Whitelist later' });
    expect((await balance(second, m.api_key)).status).toBe(200);
    expect((await gw.admin('PATCH', `/merchants/${m.id}`, { ip_whitelist: ['10.9.9.9'] })).status).toBe(200);
    const res = await soon(async () => {
      const r = await balance(second, m.api_key);
      return r.status === 403 ? r : undefined;
    });
    expect(res.body).toEqual({ success: false, message: 'IP not whitelisted: 127.0.0.1' });
    expect((await gw.admin('PATCH', `/merchants/${m.id}`, { ip_whitelist: ['127.0.0.1'] })).status).toBe(200);
    await soon(async () => (await balance(second, m.api_key)).status === 200);
  });

  it('a rotation on one instance: the old key is refused by the other, the new one accepted', async () => {
    const m = await gw.createMerchant({ name: 'Rotated' });
    expect((await balance(second, m.api_key)).status).toBe(200);
    const rotated = await gw.admin('POST', `/merchants/${m.id}/rotate-key`);
    await soon(async () => (await balance(second, m.api_key)).status === 401);
    expect((await balance(second, rotated.body.data.api_key)).status).toBe(200);
    expect((await balance(gw, m.api_key)).status).toBe(401);
  });

  it('the whole cache is flushed when the notification connection drops, and used again once it is back', async () => {
    const m = await gw.createMerchant({ name: 'Flushed' });
    expect((await balance(second, m.api_key)).status).toBe(200);
    await silently('update merchants set enabled = false where id = $1', [m.id]);
    expect((await balance(second, m.api_key)).status).toBe(200); // stale, as nobody was told
    // cut both instances' listener connections
    const admin = new pg.Client({ connectionString: gw.databaseUrl });
    await admin.connect();
    try {
      const killed = await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'gateway listen merchant_changed'`,
      );
      expect(killed.rowCount).toBe(2);
    } finally {
      await admin.end();
    }
    await eventually(async () => !second.app.merchantKeys.listening, 2000, 5);
    expect((await balance(second, m.api_key)).status).toBe(403); // read from the database meanwhile
    await eventually(async () => second.app.merchantKeys.listening, 5000, 20);
    expect((await balance(second, m.api_key)).status).toBe(403);
    // and notifications work again on the new connection
    await gw.admin('PATCH', `/merchants/${m.id}`, { enabled: true });
    await soon(async () => (await balance(second, m.api_key)).status === 200);
  });
});
