// A start that fails after its parts began (here: the port is taken, so listen fails after the
// worker, the dispatchers and the relay started) stops every part it began and releases every
// database connection, then rejects: nothing of it keeps running in the process.
import net from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshDatabase, startTestGateway } from '../helpers.js';

describe('a failed start', () => {
  it('stops what it began and leaves no connection behind', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as net.AddressInfo).port;
    const url = await freshDatabase();
    const db = new URL(url).pathname.slice(1);
    try {
      const started = startTestGateway({ PORT: String(port) }, { databaseUrl: url });
      await expect(started).rejects.toThrow(/EADDRINUSE/);
      const probe = new pg.Client({ connectionString: url });
      await probe.connect();
      try {
        const { rows } = await probe.query('select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [db]);
        expect(rows[0].n).toBe(0);
      } finally {
        await probe.end();
      }
    } finally {
      taken.close();
    }
  });
});
