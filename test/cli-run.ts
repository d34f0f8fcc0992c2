// Runs the `gateway` CLI (bin/gateway.mjs, --json) as a child process against a database.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { freshDatabase, startTestGateway, type TestGateway } from './helpers.js';

const exec = promisify(execFile);

/**
 * The per-test bound of tests that run the CLI: each call starts a Node process that loads the
 * TypeScript sources through tsx, which takes seconds on a busy machine (load 9 on 2 cores: over
 * 60 s for a test of a dozen calls). The tests assert outcomes only; this bound just has to be
 * generous enough never to be the reason a test fails.
 */
export const CLI_TEST_TIMEOUT_MS = 600_000;

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

/**
 * A gateway on a database of its own for the file's tests, and the CLI against that database
 * (registers beforeAll/afterAll). Read `.gw` and `.databaseUrl` inside tests.
 */
export function cliGateway(env: Record<string, string> = {}) {
  const state = {} as { gw: TestGateway; databaseUrl: string; cli: (...args: string[]) => ReturnType<typeof runCli> };
  beforeAll(async () => {
    state.databaseUrl = await freshDatabase();
    state.gw = await startTestGateway({}, { databaseUrl: state.databaseUrl, worker: false });
  });
  afterAll(async () => state.gw?.stop());
  state.cli = (...args: string[]) => runCli(state.databaseUrl, args, env);
  return state;
}
