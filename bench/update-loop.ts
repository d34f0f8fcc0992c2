// Baseline (c) without pgbench: `clients` connections, each updating its own row in a loop (one
// autocommit transaction per UPDATE) for `seconds`. Prints transactions per second.
import pg from 'pg';

const [url, clientsArg, secondsArg] = process.argv.slice(2);
const clients = Number(clientsArg);
const end = Date.now() + Number(secondsArg) * 1000;
let done = 0;
await Promise.all(
  Array.from({ length: clients }, async (_, i) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    while (Date.now() < end) {
      await c.query('update t set n = n + 1 where id = $1', [i + 1]);
      done++;
    }
    await c.end();
  }),
);
console.log((done / Number(secondsArg)).toFixed(0));
