// LOG_REQUESTS (src/http/access-log.ts): one access line per answer, written when it is sent, with
// the request id, method, masked URL, status and time; `errors` keeps answers with status ≥ 400,
// `off` none. Hosted page tokens never reach the log.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';

const started: TestGateway[] = [];
afterAll(async () => {
  for (const g of started) await g.stop();
});

async function gatewayLogging(mode: string | undefined) {
  const lines: Record<string, any>[] = [];
  const writes = { n: 0 };
  const sink = new Writable({
    write(chunk, _enc, cb) {
      writes.n++;
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  const gw = await startTestGateway(mode === undefined ? {} : { LOG_REQUESTS: mode }, { logger: pino({ level: 'info' }, sink), worker: false });
  started.push(gw);
  // Lines of one event-loop turn are written at its end (access-log.ts): read after that.
  const access = async () => {
    await new Promise((r) => setImmediate(r));
    return lines.filter((l) => l.msg === 'request completed');
  };
  return { gw, lines, access, writes };
}

describe('access log', () => {
  it('by default writes one line per answer, none when the request arrives, with the token masked', async () => {
    const { gw, lines, access } = await gatewayLogging(undefined);
    const m = await gw.createMerchant();
    const before = (await access()).length;
    const ok = await gw.merchant(m.api_key, 'GET', '/balance', undefined, { 'x-request-id': 'log-test-1' });
    expect(ok.status).toBe(200);
    await gw.app.inject({ method: 'GET', url: '/api/v1/hosted/secretTOKEN123/status' });
    const mine = (await access()).slice(before);
    expect(mine).toHaveLength(2);
    expect(mine[0]).toMatchObject({ reqId: 'log-test-1', req: { method: 'GET', url: '/api/v1/merchant/balance' }, res: { statusCode: 200 } });
    expect(typeof mine[0].responseTime).toBe('number');
    expect(mine[1].req.url).toBe('/api/v1/hosted/***/status');
    expect(JSON.stringify(lines)).not.toContain('secretTOKEN123');
    expect(lines.filter((l) => l.msg === 'incoming request')).toHaveLength(0);
  });

  it('writes the line in pino\'s own format and keys, valid JSON whatever the request carries', async () => {
    const { gw, lines, access } = await gatewayLogging(undefined);
    const m = await gw.createMerchant();
    const before = (await access()).length;
    const odd = '/purchase/status?merchant_tx_id=%22%7D%0Aé\u00e9"x';
    await gw.merchant(m.api_key, 'GET', odd);
    const line = (await access()).slice(before)[0];
    expect(Object.keys(line)).toEqual(['level', 'time', 'pid', 'hostname', 'reqId', 'req', 'res', 'responseTime', 'msg']);
    expect(line.level).toBe(30);
    expect(Math.abs(line.time - Date.now())).toBeLessThan(60_000);
    expect(line.pid).toBe(process.pid);
    expect(Object.keys(line.req)).toEqual(['method', 'url', 'host', 'remoteAddress']);
    expect(line.req.url).toContain('/api/v1/merchant/purchase/status?merchant_tx_id=');
    // the other lines of the same logger carry the same bindings
    const other = lines.find((l) => l.msg !== 'request completed');
    if (other) expect([other.pid, other.hostname]).toEqual([line.pid, line.hostname]);
  });

  it('accessLine escapes what it is given', async () => {
    const { accessLine } = await import('../../src/http/access-log.js');
    const req = { id: 'a"b', method: 'GET', url: '/deposit/tok"en?x="\n', host: 'h"\u2028', ip: '::1' } as never;
    const parsed = JSON.parse(accessLine(',"pid":1', req, 201, 1.5));
    expect(parsed).toMatchObject({ reqId: 'a"b', req: { url: '/deposit/***?x="\n', host: 'h"\u2028' }, res: { statusCode: 201 }, responseTime: 1.5, pid: 1 });
  });

  it('writes the lines of one turn of the event loop in one write', async () => {
    const { gw, access, writes } = await gatewayLogging(undefined);
    const m = await gw.createMerchant();
    const before = (await access()).length;
    const writesBefore = writes.n;
    await Promise.all(Array.from({ length: 20 }, (_, i) => gw.merchant(m.api_key, 'GET', '/balance', undefined, { 'x-request-id': `batch-${i}` })));
    const mine = (await access()).slice(before);
    expect(mine.map((l) => l.reqId).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `batch-${i}`).sort());
    expect(writes.n - writesBefore).toBeLessThan(20);
  });

  it('sums repeated 304 lane answers of one turn into one line with their count; another asker, status or turn is another line', async () => {
    const { AccessLog } = await import('../../src/http/access-log.js');
    const out: Record<string, any>[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split('\n').filter(Boolean)) out.push(JSON.parse(l));
        cb();
      },
    });
    const log = new AccessLog('all', pino({ level: 'info' }, sink));
    const poll = (id: string) => ({ id, method: 'GET', url: '/api/v1/merchant/purchase/available?game=csgo&page=1', host: 'gw', ip: '10.0.0.1' });
    const turn = () => new Promise((r) => setImmediate(r));
    for (let i = 0; i < 30; i++) log.answered(poll(`p-${i}`), 304, 0.5 + i, 'merchant-1 10.0.0.1');
    log.answered(poll('other-merchant'), 304, 0.2, 'merchant-2 10.0.0.1');
    log.answered(poll('no-key'), 304, 0.3);
    log.answered(poll('not-304'), 200, 0.4, 'merchant-1 10.0.0.1');
    await turn();
    await turn();
    expect(out.map((l) => [l.reqId, l.res.statusCode, l.repeats])).toEqual([
      ['no-key', 304, undefined],
      ['p-0', 304, 30],
      ['other-merchant', 304, undefined],
      ['not-304', 200, undefined],
    ]);
    const summed = out[1];
    expect(summed.time).toBeLessThanOrEqual(out[3].time); // the first answer's time, not the flush's
    expect(Object.keys(summed)).toEqual(['level', 'time', 'pid', 'hostname', 'reqId', 'req', 'res', 'responseTime', 'repeats', 'msg']);
    expect(summed).toMatchObject({ msg: 'request completed', responseTime: 0.5, req: { url: '/api/v1/merchant/purchase/available?game=csgo&page=1', remoteAddress: '10.0.0.1' } });
    // the next turn starts a new line
    log.answered(poll('next-turn'), 304, 1, 'merchant-1 10.0.0.1');
    await turn();
    expect(out.slice(4).map((l) => [l.reqId, l.repeats])).toEqual([['next-turn', undefined]]);
    // errors mode keeps none of them
    const quiet = new AccessLog('errors', pino({ level: 'info' }, sink));
    quiet.answered(poll('quiet'), 304, 1, 'merchant-1 10.0.0.1');
    await turn();
    expect(out).toHaveLength(5);
  });

  it('writes the lines still waiting when the process exits', async () => {
    const script = `
      import pino from 'pino';
      import { AccessLog } from './src/http/access-log.ts';
      const log = new AccessLog('all', pino());
      log.answered({ id: 'at-exit', method: 'GET', url: '/x', host: 'h', ip: '::1' }, 304, 1);
      for (const id of ['summed-1', 'summed-2', 'summed-3']) log.answered({ id, method: 'GET', url: '/y', host: 'h', ip: '::1' }, 304, 1, 'k');
      process.exit(0);`;
    const { execFileSync } = await import('node:child_process');
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), encoding: 'utf8' });
    expect(out).toContain('"reqId":"at-exit"');
    expect(JSON.parse(out.trim().split('\n').pop()!)).toMatchObject({ msg: 'request completed', reqId: 'summed-1', repeats: 3, res: { statusCode: 304 } });
  });

  it('errors: only answers with status 400 or more', async () => {
    const { gw, access } = await gatewayLogging('errors');
    const m = await gw.createMerchant();
    const before = (await access()).length;
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).status).toBe(200);
    expect((await gw.merchant('sk_wrong', 'GET', '/balance')).status).toBe(401);
    expect((await gw.merchant(m.api_key, 'GET', '/purchase/status?id=999999')).status).toBe(404);
    expect((await access()).slice(before).map((l) => l.res.statusCode)).toEqual([401, 404]);
  });

  it('off: no access lines', async () => {
    const { gw, access } = await gatewayLogging('off');
    const m = await gw.createMerchant();
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).status).toBe(200);
    expect((await gw.merchant('sk_wrong', 'GET', '/balance')).status).toBe(401);
    expect((await access())).toHaveLength(0);
  });

  it('refuses an unknown mode', async () => {
    const { loadConfig } = await import('../../src/config.js');
    expect(() => loadConfig({ LOG_REQUESTS: 'some' })).toThrow(/LOG_REQUESTS must be one of all, errors, off/);
    expect(loadConfig({}).logRequests).toBe('all');
  });
});
