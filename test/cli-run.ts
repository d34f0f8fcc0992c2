// Runs the `gateway` CLI (bin/gateway.mjs, --json) as a child process against a database.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export async function runCli(databaseUrl: string, args: string[], env: Record<string, string> = {}) {
  try {
    const r = await exec(process.execPath, ['bin/gateway.mjs', '--json', ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', SANDBOX_CATALOGUE_SIZE: '0', ...env },
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e: any) {
    return { code: e.code as number, out: e.stdout as string, err: e.stderr as string };
  }
}
