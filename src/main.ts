// Composition root for `npm start`: config → database → worker → HTTP, and a clean stop on Ctrl-C.
import { loadConfig, ConfigError } from './config.js';
import { startGateway } from './app.js';
import { StartupError } from './db/startup-error.js';

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
  const gateway = await startGateway(config, {
    seedDemo: true,
    onDemoMerchant: (m) => {
      console.log('\n  Sandbox demo merchant created (shown once; keep it):');
      console.log(`    merchant id     ${m.id}`);
      console.log(`    X-Api-Key       ${m.api_key}`);
      console.log(`    webhook secret  ${m.webhook_secret}\n`);
    },
  });
  const { ctx } = gateway;
  console.log(`\n  Skin trading gateway listening on ${ctx.config.publicUrl}  (platform: ${ctx.config.platform})`);
  console.log(`    API docs        ${ctx.config.publicUrl}/docs`);
  console.log(`    merchant API    ${ctx.config.publicUrl}/api/v1/merchant`);
  console.log(`    dashboard       ${ctx.config.publicUrl}/dashboard  ·  console ${ctx.config.publicUrl}/console  (first operator: npx gateway operator create --email …)`);
  // A token the operator set is theirs and stays out of the output; a generated sandbox one is shown.
  if (config.adminToken) console.log('    admin token     from ADMIN_TOKEN  (Authorization: Bearer …)');
  else if (ctx.config.adminToken) console.log(`    admin token     ${ctx.config.adminToken}  (Authorization: Bearer …; kept in ${ctx.config.dataDir}/admin-token)`);
  console.log(`    database        ${ctx.config.databaseUrl ? 'external (DATABASE_URL)' : `embedded, data in ${ctx.config.dataDir}`}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n  ${signal}: stopping the gateway…`);
    try {
      await gateway.stop();
      console.log('  stopped cleanly.');
      process.exit(0);
    } catch (err) {
      console.error('  error while stopping:', err);
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  // A refusal the operator can act on is one line; anything else keeps its stack for the bug report.
  if (err instanceof StartupError) console.error(`gateway failed to start: ${err.message}`);
  else console.error('gateway failed to start:', err);
  process.exit(1);
});
