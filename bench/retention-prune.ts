// `DATABASE_URL=… npx tsx bench/retention-prune.ts` (issue 26): one retention run on a grown database
// (bench:seed-year) with the settings of the environment (e.g. STATUS_HISTORY_DAYS=90), and the
// delivered-webhook prune of WEBHOOK_RETENTION_DAYS; prints rows deleted, statements, the longest one.
import { loadConfig } from '../src/config.js';
import { createDb, createPool } from '../src/db/database.js';
import { pruneDelivered } from '../src/modules/webhooks/webhook-repo.js';
import { pruneAll } from '../src/modules/retention/retention-service.js';

const config = loadConfig(process.env);
const pool = createPool(config.databaseUrl!, 2);
const db = createDb(pool);
try {
  const run = await pruneAll(db, config);
  console.log(JSON.stringify({ retention: run }));
  const started = Date.now();
  let total = 0;
  let longest = 0;
  let batches = 0;
  for (;;) {
    const t = Date.now();
    const n = await pruneDelivered(db, config.webhookRetentionDays, 1000);
    longest = Math.max(longest, Date.now() - t);
    total += n;
    batches++;
    if (n < 1000) break;
  }
  console.log(JSON.stringify({ webhook_prune: { deleted: total, batches, maxBatchMs: longest, ms: Date.now() - started } }));
} finally {
  await db.destroy();
}
