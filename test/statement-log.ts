// Records the statements the gateway's pool runs while a test listens (statement-count tests):
// every client is wrapped once when acquired; the background work (job relay, catalogue stamper,
// listeners, webhook dispatcher polls, the key's last-use write, the request-log flush) is told apart
// by its SQL.
import type pg from 'pg';

const BACKGROUND = /job_outbox_relay|catalogue_stamp_events|^\s*listen |catalogue_pages|webhook_events where state <> 'delivered'|_private_jobs|api_key_usage|insert into request_logs|insert into price_bases/;
// api_key_usage: the key's last use, written at most once a minute per key; request_logs: written in
// batches after answers (issue 24); price_bases: the bases computed at start, written in the background
// (pricing/base-store.ts) and so at any moment of a test

export function statementLog(pool: pg.Pool): { during<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> } {
  let log: string[] | undefined;
  const wrapped = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client: pg.PoolClient) => {
    if (wrapped.has(client)) return;
    wrapped.add(client);
    const query = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text ?? '';
      if (log && !BACKGROUND.test(text)) log.push(text.replace(/\s+/g, ' ').trim());
      return query(...args);
    };
  });
  return {
    async during(work) {
      log = [];
      try {
        const result = await work();
        return { result, statements: log };
      } finally {
        log = undefined;
      }
    },
  };
}
