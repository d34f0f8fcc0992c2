// Baselines (a) and (b) of `npm run bench`, in their own process like the gateway:
//   GET /const  a bare Fastify route answering a constant JSON envelope;
//   GET /pk     a bare Fastify route doing one pooled primary-key SELECT (merchants by id) on the
//               gateway's database, with the gateway's pool size.
//   GET /bytes/:name  a bare Fastify route sending bytes stored before by PUT /bytes/:name (the
//               "same bytes" baseline of the catalogue page and grouped bodies).
//   POST /write a bare Fastify route committing one single-row UPDATE (autocommit, durable) on
//               table t of the bench_update database that baseline (c) made (rows 1…64, taken in
//               turn): the most any endpoint that commits a write before answering can do here.
//   POST /write-notify  the same write, then a webhook-like POST to /receive (kept alive) and a
//               second committed UPDATE recording its delivery, then the answer: the least work of
//               one status transition with its webhook (the ceiling of the accept scenario).
//   POST /purchase-floor  one committed UPDATE (the creation), then what /write-notify does (the move
//               to active committed, its webhook POST, its delivery committed): the least a purchase
//               is made of, done one after the other with nothing shared between requests (baseline
//               (h), the floor POST purchase is read against beside (f)).
// Prints "listening <url>" when ready. Args: <database url> <merchant id>.
import http from 'node:http';
import Fastify from 'fastify';
import pg from 'pg';

const [url, merchantId] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 20 });
const app = Fastify();
const constant = { success: true, message: 'ok', data: { total: 1, hold: 0, available: 1 } };
app.get('/const', async () => constant);
app.get('/pk', async () => {
  const r = await pool.query('select id, name, enabled from merchants where id = $1', [Number(merchantId)]);
  return { success: true, message: 'ok', data: r.rows[0] };
});
let writes: pg.Pool | undefined;
let turn = 0;
async function writeOne(id: number): Promise<number> {
  if (!writes) {
    const u = new URL(url);
    u.pathname = '/bench_update';
    writes = new pg.Pool({ connectionString: u.toString(), max: 20 });
  }
  const r = await writes.query('update t set n = n + 1 where id = $1 returning n', [id]);
  return Number(r.rows[0].n);
}
app.post('/write', async () => {
  const id = (turn++ % 64) + 1;
  return { success: true, message: 'ok', data: { id, n: await writeOne(id) } };
});
app.post('/receive', async () => ({ ok: true }));
/** /write-notify's work: a committed write, its webhook POST, the delivery committed. */
async function transitionWithWebhook(id: number) {
  const n = await writeOne(id);
  await post(`${origin}/receive`, JSON.stringify({ id, n }));
  return { success: true, message: 'ok', data: { id, n: await writeOne(id) } };
}
app.post('/write-notify', async () => transitionWithWebhook((turn++ % 64) + 1));
app.post('/purchase-floor', async () => {
  const id = (turn++ % 64) + 1;
  await writeOne(id); // the creation
  return transitionWithWebhook(id);
});
const stored = new Map<string, Buffer>();
app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: 64 * 1024 * 1024 }, (_req, body, done) => done(null, body));
app.put('/bytes/:name', async (req) => {
  stored.set((req.params as { name: string }).name, req.body as Buffer);
  return { success: true };
});
app.get('/bytes/:name', async (req, reply) => reply.type('application/json; charset=utf-8').send(stored.get((req.params as { name: string }).name)));
// node:http with a kept-alive agent, as the gateway's webhook sender (src/modules/webhooks/http-sender.ts).
const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
function post(to: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(to, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.once('end', () => resolve());
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(body);
  });
}
let origin = '';
const addr = await app.listen({ port: 0, host: '127.0.0.1' });
origin = addr;
console.log(`listening ${addr}`);
process.on('SIGTERM', () => void app.close().then(() => pool.end()).then(() => process.exit(0)));
