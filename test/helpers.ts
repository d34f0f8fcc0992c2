// Test helpers: a fresh database per gateway (copied from the migrated template), a running
// gateway on a real port with its job worker, and small request helpers.
import crypto from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startGateway, type Gateway, type StartOptions } from '../src/assembly/app.js';
import { installResponseCheck } from './contract/response-check.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
const TEMPLATE_DB = 'gateway_test_template';

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A new empty (migrated) database; returns its URL. */
export async function freshDatabase(): Promise<string> {
  const server = inject('pgServerUrl');
  const name = `t_${crypto.randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    // A template can be copied by one session at a time; retry while another file is copying it.
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`create database ${name} template ${TEMPLATE_DB}`);
        break;
      } catch (err) {
        if (attempt > 50 || !/being accessed by other users/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await client.end();
  }
  return withDatabase(server, name);
}

/** A new database with nothing in it (no migration applied); returns its URL. */
export async function emptyDatabase(prefix = 'empty'): Promise<string> {
  const server = inject('pgServerUrl');
  const name = `${prefix}_${crypto.randomBytes(5).toString('hex')}`;
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  await client.query(`create database ${name}`).finally(() => client.end());
  return withDatabase(server, name);
}

export interface TestGateway extends Gateway {
  databaseUrl: string;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Record<string, any> }>;
  merchant(key: string, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Record<string, any> }>;
  createMerchant(fields?: Record<string, unknown>): Promise<{ id: number; api_key: string; webhook_secret: string; [k: string]: any }>;
  topUp(merchantId: number, amount: number): Promise<void>;
  /**
   * Jobs reach graphile_worker.jobs through the outbox (src/jobs/relay.ts), moved right after the
   * commit but asynchronously: a test that reads graphile_worker.jobs flushes the relay first.
   */
  flushJobs(): Promise<void>;
}

export async function startTestGateway(
  env: Record<string, string> = {},
  opts: StartOptions & { databaseUrl?: string } = {},
): Promise<TestGateway> {
  const databaseUrl = opts.databaseUrl ?? (await freshDatabase());
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    PLATFORM: 'sandbox',
    ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    SANDBOX_CATALOGUE_SIZE: '200',
    // Tests fire many requests from one address: limits far above them (the limiter still runs and
    // answers its headers); test/foundation/rate-limits.test.ts sets small ones.
    RATE_LIMIT_MERCHANT_PER_MINUTE: '10000000',
    RATE_LIMIT_HOSTED_PER_MINUTE: '10000000',
    RATE_LIMIT_SIGN_IN_PER_MINUTE: '10000000',
    RATE_LIMIT_PUBLIC_PER_MINUTE: '10000000',
    RATE_LIMIT_IN_FLIGHT: '100000',
    ...env,
  });
  // Every answer is checked against the OpenAPI document (test/contract/response-check.ts).
  const own = opts.configureServer;
  const configureServer = async (app: Parameters<NonNullable<StartOptions['configureServer']>>[0]) => {
    if (process.env.RESPONSE_CHECK !== 'off') installResponseCheck(app); // off: only to measure its cost
    await own?.(app);
  };
  const gw = await startGateway(config, { listen: true, ...opts, configureServer });
  // With PORT=0 the public URL is only known after listen.
  gw.ctx.config.publicUrl = gw.url;

  async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
    const res = await gw.app.inject({
      method: method as any,
      url: path,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    let parsed: any = undefined;
    try {
      parsed = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      parsed = res.body;
    }
    return { status: res.statusCode, body: parsed, headers: res.headers as Record<string, any> };
  }

  const t: TestGateway = Object.assign(gw, {
    databaseUrl,
    admin: (method: string, path: string, body?: unknown) =>
      call(method, `/api/admin${path}`, { authorization: `Bearer ${ADMIN_TOKEN}` }, body),
    merchant: (key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      call(method, `/api/v1/merchant${path}`, { 'x-api-key': key, ...headers }, body),
    async createMerchant(fields: Record<string, unknown> = {}) {
      const res = await call('POST', '/api/admin/merchants', { authorization: `Bearer ${ADMIN_TOKEN}` }, { name: 'Test merchant', ...fields });
      if (res.status !== 201) throw new Error(`createMerchant failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data;
    },
    flushJobs: () => gw.ctx.jobRelay.flush(),
    async topUp(merchantId: number, amount: number) {
      const res = await call('POST', `/api/admin/merchants/${merchantId}/top-ups`, { authorization: `Bearer ${ADMIN_TOKEN}` }, { amount });
      if (res.status !== 201) throw new Error(`topUp failed: ${res.status} ${JSON.stringify(res.body)}`);
    },
  });
  return t;
}

/**
 * A deadline only turns a condition that never comes into a readable failure; it is not a claim
 * about speed (that is the bench's). On a busy machine (load 9 and more on 2 cores) a condition
 * that takes 1 s on an idle one can take 30, so no wait gives up before this.
 */
export const MIN_WAIT_MS = 60_000;

/** Polls `fn` until it returns a truthy value or the time (at least MIN_WAIT_MS) runs out. */
export async function eventually<T>(fn: () => Promise<T | undefined | false | null>, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  timeoutMs = Math.max(timeoutMs, MIN_WAIT_MS);
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
