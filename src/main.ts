// Composition root for `npm start`: config → database → worker → HTTP, and a clean stop on Ctrl-C.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, ConfigError, PUBLIC_URL_FILE } from './config.js';
import type { EarlyEmbedded } from './assembly/app.js';
import { startEmbeddedPostgres } from './db/embedded.js';
import { StartupError } from './db/startup-error.js';

/**
 * The embedded cluster starts first: it is a child process, so it starts on the other core while
 * this one loads the gateway's modules (most of a restart's second). Its log lines are kept until
 * the logger exists.
 */
function startEmbeddedEarly(config: ReturnType<typeof loadConfig>): EarlyEmbedded | undefined {
  if (config.databaseUrl) return undefined;
  const early: string[] = [];
  let sink: (msg: string) => void = (msg) => {
    early.push(msg);
  };
  const started = startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, log: (m) => sink(m) });
  started.catch(() => {}); // awaited (and reported) by startGateway
  return {
    started,
    logTo(log) {
      for (const m of early.splice(0)) log(m);
      sink = log;
    },
  };
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  // stdout is the JSON log; what a person must read once (the first start's secrets, the
  // addresses) goes to the terminal on stderr and never into the log.
  const say = (line = '') => process.stderr.write(`${line}\n`);
  // A generated admin token is shown once, at the start that creates it; afterwards its file is named.
  const tokenFile = path.join(config.dataDir, 'admin-token');
  const tokenExisted = existsSync(tokenFile);
  const embedded = startEmbeddedEarly(config);
  const { startGateway } = await import('./assembly/app.js');
  const gateway = await startGateway(config, {
    embedded,
    seedDemo: true,
    onDemoMerchant: (m) => {
      say('\n  Sandbox demo merchant created (shown once; keep it):');
      say(`    merchant id     ${m.id}`);
      say(`    X-Api-Key       ${m.api_key}`);
      say(`    webhook secret  ${m.webhook_secret}\n`);
    },
  });
  const { ctx } = gateway;
  const log = ctx.log;
  say(`\n  Skin trading gateway listening on ${ctx.config.publicUrl}  (platform: ${ctx.config.platform})`);
  say(`    API docs        ${ctx.config.publicUrl}/docs`);
  say(`    merchant API    ${ctx.config.publicUrl}/api/v1/merchant`);
  say(`    dashboard       ${ctx.config.publicUrl}/dashboard  ·  console ${ctx.config.publicUrl}/console  (first operator: node bin/gateway.mjs operator create --email …)`);
  // A token the operator set is theirs and stays out of the output; a generated sandbox one is shown.
  if (config.adminToken) say('    admin token     from ADMIN_TOKEN  (Authorization: Bearer …)');
  else if (ctx.config.adminToken && !tokenExisted) say(`    admin token     ${ctx.config.adminToken}  (Authorization: Bearer …; shown once, kept in ${tokenFile})`);
  else if (ctx.config.adminToken) say(`    admin token     in ${tokenFile}  (Authorization: Bearer …)`);
  else say('    admin token     none: the operator API answers 401 to every request (set ADMIN_TOKEN)');
  say(`    database        ${ctx.config.databaseUrl ? 'external (DATABASE_URL)' : `embedded, data in ${ctx.config.dataDir}`}\n`);
  if (!ctx.config.databaseUrl) writeFileSync(path.join(config.dataDir, PUBLIC_URL_FILE), ctx.config.publicUrl);
  log.info({ url: ctx.config.publicUrl, platform: ctx.config.platform, database: ctx.config.databaseUrl ? 'external' : 'embedded' }, 'gateway ready');

  // First SIGINT/SIGTERM: a clean stop (app.ts says in which order). A second one while it runs:
  // stop at once (the embedded PostgreSQL's watchdog then stops the cluster, fast). The same signal
  // again within REPEAT_MS of the first is that first request, not a second one: under `npm start`
  // a Ctrl-C arrives twice at once (the terminal signals the whole foreground group, npm included,
  // and npm forwards it to the gateway), as does a supervisor's SIGTERM sent to the whole group;
  // a person's second Ctrl-C comes later.
  const REPEAT_MS = 1000;
  let first: { signal: NodeJS.Signals; at: number } | undefined;
  const stop = async (signal: NodeJS.Signals) => {
    if (first) {
      if (signal === first.signal && performance.now() - first.at < REPEAT_MS) return;
      log.warn({ signal }, 'second signal: stopping at once');
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    first = { signal, at: performance.now() };
    log.info({ signal }, 'stopping the gateway');
    say(`\n  ${signal}: stopping the gateway…`);
    try {
      await gateway.stop();
      log.info('stopped cleanly');
      say('  stopped cleanly.');
      process.exitCode = 0;
    } catch (err) {
      log.error({ err }, 'error while stopping');
      process.exitCode = 1;
    }
    // The log is written synchronously: exit now rather than wait for timers of libraries.
    process.exit();
  };
  process.on('SIGINT', (s) => void stop(s));
  process.on('SIGTERM', (s) => void stop(s));
}

main().catch((err) => {
  // A refusal the operator can act on is one line; anything else keeps its stack for the bug report.
  if (err instanceof StartupError) console.error(`gateway failed to start: ${err.message}`);
  else console.error('gateway failed to start:', err);
  process.exit(1);
});
