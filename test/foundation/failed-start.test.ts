// A start that fails after its parts began stops every part it began and releases every database
// connection, then rejects: nothing of it keeps running in the process. The port taken: listen
// fails after the worker, the dispatchers and the relay started (before the fix the start hung in
// pool.end(), waiting for their connections). A plugin throwing while the server is built.
import net from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { eventually, freshDatabase, startTestGateway } from '../helpers.js';

/** Client connections to the database `url` other than the probe's own, once they settle at 0 (or 20 s). */
async function connectionsLeft(url: string): Promise<number> {
  const db = new URL(url).pathname.slice(1);
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  try {
    // Client connections only (an autovacuum worker may be analysing the seeded tables); a
    // connection closing is seen by the server a moment after the client ends it.
    const clients = async () =>
      (await probe.query("select count(*)::int as n from pg_stat_activity where datname = $1 and backend_type = 'client backend' and pid <> pg_backend_pid()", [db])).rows[0].n as number;
    await eventually(async () => (await clients()) === 0, 20_000).catch(() => undefined);
    return await clients();
  } finally {
    await probe.end();
  }
}

describe('a failed start', () => {
  it('while building the server: closes what the server set up, then the pool', async () => {
    const url = await freshDatabase();
    const started = startTestGateway({}, { databaseUrl: url, configureServer: () => { throw new Error('a plugin failed'); } });
    await expect(started).rejects.toThrow('a plugin failed');
    expect(await connectionsLeft(url)).toBe(0);
  });

  it('stops what it began and leaves no connection behind', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as net.AddressInfo).port;
    const url = await freshDatabase();
    try {
      const started = startTestGateway({ PORT: String(port) }, { databaseUrl: url });
      await expect(started).rejects.toThrow(/EADDRINUSE/);
      expect(await connectionsLeft(url)).toBe(0);
    } finally {
      taken.close();
    }
  });
});
