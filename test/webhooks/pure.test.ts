// Unit tests of the pure parts: body building and signing, retry timing, address classification.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildWebhookBody, legacySign, MAX_WEBHOOK_BODY_BYTES, standardSignature, standardWebhookKey } from '../../src/modules/webhooks/signing.js';
import { isAcknowledged, MAX_RETRY_AFTER_SECONDS, nextRetry, parseRetryAfter, withJitter } from '../../src/modules/webhooks/schedule.js';
import { blockedAddressReason } from '../../src/modules/webhooks/ip-policy.js';
import { assertWebhookTarget, isTargetRefused, resolveTarget, TargetLookupTimeoutError } from '../../src/modules/webhooks/target.js';
import { AppError } from '../../src/domain/errors.js';

/** Refusals are 'validation' AppErrors (payloads, targets). */
const refusal = (message: RegExp) => expect.objectContaining({ kind: 'validation', message: expect.stringMatching(message) });

const secret = 'whsec_' + crypto.randomBytes(32).toString('base64url');

describe('webhook body and signatures', () => {
  it('sign = base64(sha256(String(id) + secret)) over the whole secret string', () => {
    expect(legacySign(42, 'abc')).toBe(crypto.createHash('sha256').update('42abc').digest('base64'));
    expect(legacySign('42', 'abc')).toBe(legacySign(42, 'abc'));
  });

  it('the Standard Webhooks key is the 32 bytes after whsec_ (base64url); other secrets are their UTF-8 bytes', () => {
    const raw = crypto.randomBytes(32);
    expect(standardWebhookKey('whsec_' + raw.toString('base64url')).equals(raw)).toBe(true);
    // standard base64 (+ /) decodes to the same bytes, so converted secrets verify too
    expect(standardWebhookKey('whsec_' + raw.toString('base64')).equals(raw)).toBe(true);
    expect(standardWebhookKey('plain secret').equals(Buffer.from('plain secret'))).toBe(true);
  });

  it('webhook-signature is v1,<base64 HMAC-SHA256 of "id.timestamp.body">', () => {
    const key = Buffer.from(secret.slice(6), 'base64url');
    const expected = crypto.createHmac('sha256', key).update('evt_1.1700000000.{"a":1}').digest('base64');
    expect(standardSignature(secret, 'evt_1', 1700000000, '{"a":1}')).toBe(`v1,${expected}`);
  });

  it('a deposit body: sign added, ids JSON integers, no purchase_id key', () => {
    const { body } = buildWebhookBody('deposit', 7, { status: 'completed', trade_id: '7', purchase_id: null, amount: 1.5, sign: 'forged' }, secret);
    const parsed = JSON.parse(body);
    expect(parsed.trade_id).toBe(7);
    expect('purchase_id' in parsed).toBe(false);
    expect(parsed.sign).toBe(legacySign(7, secret));
    expect(parsed.amount).toBe(1.5);
  });

  it('a purchase body signs purchase_id; a missing id falls back to the record id', () => {
    const parsed = JSON.parse(buildWebhookBody('purchase', 99, { status: 'active' }, secret).body);
    expect(parsed.purchase_id).toBe(99);
    expect(parsed.sign).toBe(legacySign(99, secret));
  });

  it('refuses a body over 4 KiB instead of sending a broken one', () => {
    const big = { status: 'completed', trade_id: 1, merchant_tx_id: 'x'.repeat(MAX_WEBHOOK_BODY_BYTES) };
    expect(() => buildWebhookBody('deposit', 1, big, secret)).toThrow(refusal(/exceeds the 4096-byte limit/));
    const fits = buildWebhookBody('deposit', 1, { status: 'completed', trade_id: 1, merchant_tx_id: 'x'.repeat(3500) }, secret);
    expect(fits.bytes).toBeLessThanOrEqual(MAX_WEBHOOK_BODY_BYTES);
  });

  it('refuses payloads that are not objects or have no usable id', () => {
    expect(() => buildWebhookBody('deposit', 1, [1], secret)).toThrow(refusal(/not a JSON object/));
    expect(() => buildWebhookBody('deposit', 0, { trade_id: 'abc' }, secret)).toThrow(refusal(/not a positive integer/));
  });
});

describe('retry timing', () => {
  it('jitter stays within ±10% and is never negative', () => {
    expect(withJitter(10, () => 0)).toBe(9000);
    expect(withJitter(10, () => 1)).toBe(11000);
    expect(withJitter(10, () => 0.5)).toBe(10000);
    expect(withJitter(0, () => 0)).toBe(0);
    for (let i = 0; i < 200; i++) {
      const v = withJitter(5);
      expect(v).toBeGreaterThanOrEqual(4500);
      expect(v).toBeLessThanOrEqual(5500);
    }
  });

  it('attempt count = schedule length; entry k is the wait before attempt k+1', () => {
    const base = { schedule: [0, 5, 300], maxAttempts: null, statusCode: 500, nowMs: 0, random: () => 0.5 };
    expect(nextRetry({ ...base, attemptsDone: 1 })).toEqual({ exhausted: false, delayMs: 5000 });
    expect(nextRetry({ ...base, attemptsDone: 2 })).toEqual({ exhausted: false, delayMs: 300000 });
    expect(nextRetry({ ...base, attemptsDone: 3 })).toEqual({ exhausted: true });
    // a redelivery allows exactly one more attempt
    expect(nextRetry({ ...base, attemptsDone: 4, maxAttempts: 4 })).toEqual({ exhausted: true });
  });

  it('Retry-After (seconds or HTTP date) on 429/503 postpones the retry, capped at a day', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('999999999', now)).toBe(MAX_RETRY_AFTER_SECONDS * 1000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    const base = { schedule: [0, 1, 1], attemptsDone: 1, maxAttempts: null, nowMs: now, random: () => 0.5 };
    expect(nextRetry({ ...base, statusCode: 429, retryAfterHeader: '20' })).toEqual({ exhausted: false, delayMs: 20000 });
    expect(nextRetry({ ...base, statusCode: 503, retryAfterHeader: '20' })).toEqual({ exhausted: false, delayMs: 20000 });
    // only 429 and 503 carry a meaningful Retry-After
    expect(nextRetry({ ...base, statusCode: 500, retryAfterHeader: '20' })).toEqual({ exhausted: false, delayMs: 1000 });
    // never earlier than the schedule says
    expect(nextRetry({ ...base, schedule: [0, 60], statusCode: 429, retryAfterHeader: '1' })).toEqual({ exhausted: false, delayMs: 60000 });
  });

  it('only 2xx acknowledges', () => {
    expect(isAcknowledged(200)).toBe(true);
    expect(isAcknowledged(204)).toBe(true);
    expect(isAcknowledged(302)).toBe(false);
    expect(isAcknowledged(404)).toBe(false);
    expect(isAcknowledged(null)).toBe(false);
  });
});

describe('address classification (SSRF)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['100.64.0.1', 'carrier-grade'],
    ['100.127.255.254', 'carrier-grade'],
    ['0.0.0.0', 'this-network'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 link-local'],
    ['2002:7f00:1::', '6to4 loopback'],
    ['[::1]', 'loopback'],
    ['not-an-ip', 'not an IP'],
    // IPv4-translated (SIIT, ::ffff:0:0:0/96): judged by the embedded address
    ['::ffff:0:7f00:1', 'IPv4-translated (SIIT) loopback'],
    ['::ffff:0:10.0.0.1', 'IPv4-translated (SIIT) private'],
    ['::ffff:0:169.254.169.254', 'IPv4-translated (SIIT) link-local'],
    // local-use NAT64 (RFC 8215): refused whatever it embeds
    ['64:ff9b:1::808:808', 'local-use NAT64'],
    ['64:ff9b:1:ffff::1', 'local-use NAT64'],
    // Teredo and the rest of 2001::/23
    ['2001::1', 'Teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:2::1', 'IETF protocol assignments'],
    ['2001:10::1', 'IETF protocol assignments'],
    // 6to4: judged by the embedded address
    ['2002:a00:1::1', '6to4 private'],
    ['2002:a9fe:a9fe::', '6to4 link-local'],
    ['2002:c0a8:101::1', '6to4 private'],
    ['3fff::1', 'documentation'],
  ])('%s is refused (%s)', (ip, why) => {
    expect(blockedAddressReason(ip)).toContain(why);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2a00:1450:4001:81b::200e',
    '::ffff:0:8.8.8.8', // SIIT of a public address
    '64:ff9b::808:808', // well-known NAT64 of a public address
    '2002:808:808::1', // 6to4 of a public address
    '2001:200::1', // just past 2001::/23
    '2001:4860:4860::8888',
  ])(
    '%s is public',
    (ip) => {
      expect(blockedAddressReason(ip)).toBeNull();
    },
  );

  it('delivery-time resolution: one blocked address refuses the host (DNS rebinding)', async () => {
    const lookup = async () => [
      { address: '93.184.216.34', family: 4 as const },
      { address: '10.0.0.5', family: 4 as const },
    ];
    await expect(resolveTarget('https://hooks.example/x', false, lookup)).rejects.toThrow(refusal(/10\.0\.0\.5: private/));
    await expect(resolveTarget('https://hooks.example/x', true, lookup)).resolves.toHaveLength(2);
    await expect(resolveTarget('https://hooks.example/x', false, async () => [{ address: '93.184.216.34', family: 4 }])).resolves.toEqual([
      { address: '93.184.216.34', family: 4 },
    ]);
    await expect(resolveTarget('http://[::ffff:127.0.0.1]:8080/', false)).rejects.toThrow(/loopback/);
    await expect(resolveTarget('http://2130706433/', false)).rejects.toThrow(/loopback/); // 127.0.0.1 as an integer
    await expect(resolveTarget('ftp://example.com/', true)).rejects.toThrow(refusal(/not a valid http\(s\) URL/));
    await expect(
      resolveTarget('https://nx.example/', false, async () => {
        throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
      }),
    ).rejects.toThrow(/does not resolve/);
  });
});

describe('name lookups have a deadline', () => {
  const slow = (ms: number) => () => new Promise<{ address: string; family: 4 }[]>((r) => setTimeout(() => r([{ address: '93.184.216.34', family: 4 }]), ms));
  // A lookup that never answers: reaching any result at all is the deadline's doing (no wall clock).
  const never = () => () => new Promise<{ address: string; family: 4 }[]>(() => {});

  it('resolveTarget gives up on a lookup slower than timeoutMs (a refusal), and waits for a fast one', async () => {
    const err = await resolveTarget('https://slow.example/x', false, { lookup: never(), timeoutMs: 100 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TargetLookupTimeoutError);
    expect(err).toBeInstanceOf(AppError);
    expect(isTargetRefused(err)).toBe(true);
    expect((err as TargetLookupTimeoutError).host).toBe('slow.example');
    await expect(resolveTarget('https://slow.example/x', false, { lookup: slow(10), timeoutMs: 1000 })).resolves.toEqual([{ address: '93.184.216.34', family: 4 }]);
    // an IP literal is not looked up at all
    await expect(resolveTarget('https://93.184.216.34/x', false, { lookup: slow(2000), timeoutMs: 1 })).resolves.toHaveLength(1);
  });

  it('assertWebhookTarget (result_url at request time) refuses a host that does not resolve in time, with a clear message', async () => {
    await expect(assertWebhookTarget('https://slow.example/cb', false, 'result_url', { lookup: never(), timeoutMs: 150 })).rejects.toMatchObject({
      kind: 'validation',
      data: [{ field: 'result_url', code: 'url', message: 'result_url is not an allowed webhook target: its host must resolve to public addresses' }],
    });
    await expect(assertWebhookTarget('https://fast.example/cb', false, 'result_url', { lookup: slow(5), timeoutMs: 1000 })).resolves.toBeUndefined();
    // the resolved address is still vetted
    await expect(
      assertWebhookTarget('https://inside.example/cb', false, 'result_url', { lookup: async () => [{ address: '10.0.0.1', family: 4 }] }),
    ).rejects.toMatchObject({ data: [{ field: 'result_url', code: 'url', message: 'result_url is not an allowed webhook target: its host must resolve to public addresses' }] });
    // a name that does not resolve gets the very same answer: nothing tells internal names apart
    await expect(
      assertWebhookTarget('https://nowhere.example/cb', false, 'result_url', { lookup: async () => { throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' }); } }),
    ).rejects.toMatchObject({ data: [{ field: 'result_url', code: 'url', message: 'result_url is not an allowed webhook target: its host must resolve to public addresses' }] });
  });
});
