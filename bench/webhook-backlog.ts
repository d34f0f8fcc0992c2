// Bench scenario: a backlog of 10 000 undelivered webhook events to a receiver that comes back.
//
// The merchant's receiver is down (nothing listens on its port) while 5 000 deposits each have
// a `hold` event that failed once (ECONNREFUSED, in the delivery log) and a `completed` event
// waiting behind it: the state an outage leaves, written straight into the outbox tables here
// because 10 000 transitions through the API would take minutes. The rows are written due in an
// hour; once the receiver listens again, one UPDATE makes every hold's retry (and the completeds
// behind them) due at its moment T. (Written due 4 s ahead, a slow insert — on a grown database —
// let the dispatcher try them while the receiver was still down, and the backlog then waited for
// the next retry: 10 s instead of 5.)
// Measured: deliveries/s from T to the last delivery received, and per record at the receiver
// that no `completed` arrived before its `hold`, and no event twice.
import http from 'node:http';
import pg from 'pg';
import { freePort } from '../src/db/embedded.js';
import type { Row } from './row.js';

const RECORDS = 5_000;
const FIRST_RECORD = 900_000_000;

interface Backlog {
  gatewayUrl: string;
  dbUrl: string;
  adminHeaders: Record<string, string>;
  call(url: string, method?: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
}

export async function webhookBacklog(env: Backlog): Promise<Row[]> {
  const port = await freePort();
  const target = `http://127.0.0.1:${port}/backlog`;
  const m = await env.call(`${env.gatewayUrl}/api/admin/merchants`, 'POST', { name: 'bench-backlog', webhook_url: target }, env.adminHeaders);
  if (m.status !== 201) throw new Error(`create merchant: ${m.status} ${JSON.stringify(m.body)}`);
  const merchantId = m.body.data.id as number;

  // The receiver, listening only once the backlog is written (down meanwhile).
  const seen = new Map<number, string[]>();
  const ids = new Set<string>();
  let received = 0;
  let duplicates = 0;
  let last = 0;
  let resolveAll!: () => void;
  const all = new Promise<void>((r) => (resolveAll = r));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (ch: Buffer) => chunks.push(ch));
    req.on('end', () => {
      last = Date.now();
      const id = String(req.headers['webhook-id']);
      if (ids.has(id)) duplicates++;
      ids.add(id);
      const b = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { trade_id: number; status: string };
      seen.set(b.trade_id, [...(seen.get(b.trade_id) ?? []), b.status]);
      res.writeHead(200).end('ok');
      if (++received === RECORDS * 2) resolveAll();
    });
  });

  const c = new pg.Client({ connectionString: env.dbUrl });
  await c.connect();
  let startedAt: number;
  try {
    const t = await c.query(`select now() + interval '1 hour' as t`);
    const dueAt = t.rows[0].t as Date;
    const body = (status: string) => `jsonb_build_object('status', '${status}', 'trade_id', r, 'trade_date', '2026-10-06T10:00:12.512Z',
        'merchant_tx_id', 'backlog-' || r, 'platform_id', '76561197960265736', 'offer_id', '7310000001', 'amount', 12.34, 'amount_currency', 'usd'
        ${status === 'hold' ? ", 'hold_end_date', '2026-10-13T10:00:12.512Z'" : ''})`;
    const records = `select generate_series(${FIRST_RECORD + 1}, ${FIRST_RECORD + RECORDS}) as r`;
    await c.query(
      `with holds as (
         insert into webhook_events (merchant_id, kind, record_id, status, payload, target_url, attempts, next_attempt_at, last_attempt_at, last_error)
         select $1, 'deposit', r, 'hold', ${body('hold')}, $2, 1, $3, now(), 'ECONNREFUSED: receiver down' from (${records}) s order by r
         returning id)
       insert into webhook_attempts (event_id, attempt, target_url, error) select id, 1, $2, 'ECONNREFUSED: receiver down' from holds`,
      [merchantId, target, dueAt],
    );
    await c.query(
      `insert into webhook_events (merchant_id, kind, record_id, status, payload, target_url, not_before)
       select $1, 'deposit', r, 'completed', ${body('completed')}, $2, $3 from (${records}) s order by r`,
      [merchantId, target, dueAt],
    );
    // The receiver comes back, then the backlog falls due at T (the UPDATE's now()).
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
    const due = await c.query(
      `with made_due as (
         update webhook_events
            set next_attempt_at = case when status = 'hold' then now() else next_attempt_at end,
                not_before = case when status = 'completed' then now() else not_before end
          where merchant_id = $1)
       select (extract(epoch from now()) * 1000)::float8 as ms`,
      [merchantId],
    );
    startedAt = Number(due.rows[0].ms);
  } finally {
    await c.end();
  }
  const timeout = new Promise<void>((r) => setTimeout(r, 120_000).unref());
  await Promise.race([all, timeout]);
  server.close();
  server.closeAllConnections();

  const orderBroken = [...seen.values()].filter((s) => s.indexOf('completed') !== -1 && s.indexOf('hold') > s.indexOf('completed')).length;
  const secs = Math.max(1, last - startedAt) / 1000;
  const rate = received / secs;
  return [
    {
      name: `webhook backlog: ${received}/${RECORDS * 2} events (${RECORDS} records × hold, completed) delivered in ${secs.toFixed(1)} s after the receiver came back; ` +
        `order broken in ${orderBroken} records, ${duplicates} duplicates`,
      rps: rate,
      bad: orderBroken + duplicates + (RECORDS * 2 - received),
      target: '≥ 1 000/s, order kept',
    },
  ];
}
