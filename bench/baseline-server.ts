// Baselines (a) and (b) of `npm run bench`, in their own process like the gateway:
//   GET /const  a bare Fastify route answering a constant JSON envelope;
//   GET /pk     a bare Fastify route doing one pooled primary-key SELECT (merchants by id) on the
//               gateway's database, with the gateway's pool size.
//   GET /bytes/:name  a bare Fastify route sending bytes stored before by PUT /bytes/:name (the
//               "same bytes" baseline of the catalogue page and grouped bodies).
// Prints "listening <url>" when ready. Args: <database url> <merchant id>.
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
const stored = new Map<string, Buffer>();
app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: 64 * 1024 * 1024 }, (_req, body, done) => done(null, body));
app.put('/bytes/:name', async (req) => {
  stored.set((req.params as { name: string }).name, req.body as Buffer);
  return { success: true };
});
app.get('/bytes/:name', async (req, reply) => reply.type('application/json; charset=utf-8').send(stored.get((req.params as { name: string }).name)));
const addr = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`listening ${addr}`);
process.on('SIGTERM', () => void app.close().then(() => pool.end()).then(() => process.exit(0)));
