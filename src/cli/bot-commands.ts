// `gateway bot …`: operator-managed bots. Secrets come from a Steam Guard maFile (shared_secret,
// identity_secret, account_name, Session.SteamID) and a password file or BOT_PASSWORD, so they
// never appear on a command line (ps) or in shell history.
import fs from 'node:fs/promises';
import { Option, type Command } from 'commander';
import type { CliContext } from './context.js';

type Run = (action: (ctx: CliContext, ...args: any[]) => Promise<unknown>, title?: string, columns?: string[]) => (...args: unknown[]) => Promise<void>;

async function readMaFile(file: string): Promise<{ account_name?: string; shared_secret?: string; identity_secret?: string; platform_id?: string }> {
  const text = await fs.readFile(file, 'utf8');
  const j = JSON.parse(text) as Record<string, any>;
  // SteamID is a bare 17-digit number in maFiles: JSON.parse would round it, so read the text.
  const steamId = /"SteamID"\s*:\s*"?(\d{17})"?/.exec(text)?.[1];
  return { account_name: j.account_name, shared_secret: j.shared_secret, identity_secret: j.identity_secret, platform_id: steamId };
}

/** A bot's proxy URL from a file (it may carry the proxy's credentials: kept out of ps and shell history). */
async function readProxy(file: string): Promise<string> {
  return (await fs.readFile(file, 'utf8')).trim();
}

/** A stored web session: one cookie a line (blank lines ignored), from a file so it stays out of ps. */
async function readCookies(file: string): Promise<string[]> {
  return (await fs.readFile(file, 'utf8')).split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
}

export function registerBotCommands(program: Command, run: Run, int: (v: string) => number, onOff: (v: string) => boolean): void {
  const bot = program.command('bot').description('trading bots (PLATFORM=steam); secrets are encrypted with BOT_SECRETS_KEY');
  bot
    .command('add')
    .description('add a bot from its Steam Guard maFile; the password from --password-file or BOT_PASSWORD')
    .requiredOption('--mafile <file>', 'Steam Guard maFile (JSON with shared_secret, identity_secret, account_name, Session.SteamID)')
    .option('--password-file <file>', 'file holding the account password')
    .option('--account-name <name>', 'overrides the maFile')
    .option('--platform-id <steamid64>', 'overrides the maFile')
    .option('--name <name>', 'display name (default: the account name)')
    .option('--game <game>', 'game the bot serves (repeat; default all)', (v: string, p: string[] = []) => [...p, v])
    .option('--capacity <n>', 'inventory capacity', int)
    .option('--web-cookies-file <file>', 'a stored web session, one cookie a line (steamLoginSecure=…): signs in over HTTP alone')
    .option('--proxy-file <file>', "file holding the bot's own outbound proxy URL (http://, https://, socks5://…, credentials allowed)")
    .action(
      run(async (ctx, o) => {
        const ma = await readMaFile(o.mafile);
        const password = o.passwordFile ? (await fs.readFile(o.passwordFile, 'utf8')).replace(/\r?\n$/, '') : process.env.BOT_PASSWORD;
        if (!password) throw new Error('no password: give --password-file or set BOT_PASSWORD');
        return ctx.bots.add({
          account_name: o.accountName ?? ma.account_name ?? '',
          platform_id: o.platformId ?? ma.platform_id ?? '',
          password,
          shared_secret: ma.shared_secret ?? '',
          identity_secret: ma.identity_secret ?? '',
          name: o.name,
          games: o.game,
          inventory_capacity: o.capacity,
          ...(o.webCookiesFile ? { web_cookies: await readCookies(o.webCookiesFile) } : {}),
          ...(o.proxyFile ? { proxy: await readProxy(o.proxyFile) } : {}),
        });
      }, 'bot added:'),
    );
  bot
    .command('web-session <id>')
    .description('replace the stored web session (used at the next sign-in)')
    .requiredOption('--cookies-file <file>', 'one cookie a line (steamLoginSecure=…)')
    .action(run(async (ctx, id, o) => ctx.bots.setWebSession(int(id), await readCookies(o.cookiesFile)), 'web session stored:'));
  // The console's list: operator-managed bots, and on the sandbox platform its seeded bots too (marked).
  bot.command('list').description('the bots the console shows (on the sandbox platform its seeded bots, marked sandbox)')
    .option('--limit <n>', 'at most this many', int, 100).option('--offset <n>', 'skip this many', int, 0)
    .action(run(
      async (ctx, o) => (await ctx.bots.listForConsole(o.limit, o.offset)).map((b) => ({ ...b, kind: b.account_name ? 'managed' : 'sandbox' })),
      undefined,
      ['id', 'name', 'kind', 'platform_id', 'status', 'trade_state_reason', 'games', 'lease_owner', 'last_checked_at'],
    ));
  bot.command('show <id>').description('one bot with its trade state and lease').action(run((ctx, id) => ctx.bots.show(int(id))));
  bot.command('disable <id>').description('take the bot out of rotation').action(run((ctx, id) => ctx.bots.update(int(id), { enabled: false })));
  bot.command('enable <id>').description('put the bot back in rotation (also clears cannot_trade)').action(run((ctx, id) => ctx.bots.update(int(id), { enabled: true })));
  bot
    .command('update <id>')
    .description("change a bot's name, games, capacity, enabled state or outbound proxy (the proxy from the bot's next start)")
    .option('--name <name>')
    .option('--game <game>', 'replace the games (repeat)', (v: string, p: string[] = []) => [...p, v])
    .option('--capacity <n>', '', int)
    .addOption(new Option('--enabled <on|off>').argParser(onOff))
    .option('--proxy-file <file>', 'file holding the new outbound proxy URL')
    .option('--clear-proxy', 'no proxy: the bot connects directly')
    .action(run(async (ctx, id, o) => ctx.bots.update(int(id), {
      name: o.name, games: o.game, inventory_capacity: o.capacity, enabled: o.enabled,
      ...(o.clearProxy ? { proxy: null } : o.proxyFile ? { proxy: await readProxy(o.proxyFile) } : {}),
    })));
  bot.command('remove <id>').description('out of rotation for good; secrets and tokens wiped').action(run((ctx, id) => ctx.bots.remove(int(id))));
  bot
    .command('sync')
    .description('list the bots\' tradable items in the catalogue, delist what left them (exit 1 when a bot could not be read)')
    .option('--bot <id>', 'only this bot', int)
    .action(
      run(async (ctx, o) => {
        await ctx.pricing.reload(); // the CLI's context has not loaded the price book
        const r = await ctx.botStock.sync(o.bot !== undefined ? { botId: o.bot } : {});
        if (r.errors > 0) process.exitCode = 1;
        return r;
      }, 'bot stock synced:'),
    );
  bot
    .command('check <id>')
    .description('sign the bot in on the platform and report what it can do (exit 1 when it cannot trade)')
    .action(
      run(async (ctx, id) => {
        const r = await ctx.bots.check(int(id));
        if (!r.check.can_trade) process.exitCode = 1;
        return r;
      }),
    );
}
