// One truth for a bot's rotation: the picker, the operator API and the metric apply one rule
// (domain/bot-rotation.ts) to one state (the driver's, written to the bots row on every change).
// A bot whose session died and whose sign-in fails leaves the rotation once and stays out, with
// its reason shown; merchant calls go to the other bot, or answer 503 when none is left; an
// operator's disable + enable is the picker's at once. Offline, against the stand-in platform.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers.js';
import { startSteamMerchantWorld, type SteamWorld } from './steam-helpers.js';

let w: SteamWorld;
let key: string;
let partnerSeq = 31_000_000;
const TOKEN = 'tok12345';
const NAMES = ['AK-47 | Redline (Minimal Wear)', 'StatTrak™ AK-47 | Redline (Minimal Wear)'];

beforeAll(async () => {
  ({ w, key } = await startSteamMerchantWorld({ bots: 2 }));
  // As on the platform: the trade offer page (the trade link check) answers only a signed-in bot.
  w.fake.pagesNeedSession = true;
});
afterAll(async () => w?.stop());

const view = async (id: number) => (await w.gw.admin('GET', `/bots/${id}`)).body.data;
const listed = async () => (await w.gw.admin('GET', '/bots')).body.data as { id: number; rotation: string; rotation_reason: string | null; signed_in: boolean }[];

/** A user with two priced items; `pick` makes the partner's account id pick that bot first (seed % 2 over the bots by id). */
function user(pick: 0 | 1): number {
  let partner = ++partnerSeq;
  if (partner % 2 !== pick) partner = ++partnerSeq;
  w.fake.addUser({ partner, token: TOKEN, items: NAMES.map((name, i) => ({ assetid: String(partner * 10 + i), classid: String(500 + i), name })) });
  return partner;
}

async function inventory(partner: number) {
  return w.gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner, token: TOKEN });
}

async function deposit(partner: number) {
  const inv = await inventory(partner);
  expect(inv.status, JSON.stringify(inv.body)).toBe(200);
  const res = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: `rot-${partner}`, game: 'csgo', partner, token: TOKEN, asset_ids: inv.body.data.items.map((i: any) => i.id) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.status).toBe('active');
  const offer = await w.gw.ctx.db.selectFrom('steam_offers').select('bot_id').where('offer_kind', '=', 'deposit').where('record_id', '=', res.body.data.id).executeTakeFirstOrThrow();
  return { id: Number(res.body.data.id), botId: Number(offer.bot_id) };
}

describe('a bot whose session died and whose sign-in fails', () => {
  it('leaves the rotation once and stays out (no flapping), its reason shown; merchant calls go to the healthy bot, never 500', async () => {
    const [sick, healthy] = w.bots;
    expect((await listed()).map((b) => b.rotation)).toEqual(['in', 'in']);
    w.fake.refuseSignInsOf.add(sick.fake.accountName);
    w.fake.expireSessionOf(sick.fake);

    // Before any poll has noticed: the calls the picker gives the sick bot first find its session
    // dead, and go on to the healthy one.
    for (let i = 0; i < 3; i++) {
      const res = await inventory(user(0));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.items.length).toBe(2);
    }
    expect(w.platform.rotationOf(sick.id)!.rotation).toBe('out');

    // A window of polls with merchant calls between them: the picker's state and the operator's
    // view move once (in → out) and agree at every step.
    const picker: string[] = [];
    const operator: string[] = [];
    for (let i = 0; i < 15; i++) {
      await w.platform.pollTick();
      const res = await inventory(user((i % 2) as 0 | 1));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      picker.push(w.platform.rotationOf(sick.id)!.rotation);
      operator.push(await eventually(async () => {
        const v = await view(sick.id);
        return v.rotation === picker.at(-1) ? v.rotation : undefined;
      }, 5_000, 20));
    }
    const transitions = (xs: string[]) => xs.filter((x, i) => i > 0 && x !== xs[i - 1]).length;
    expect(picker.every((r) => r === 'out'), picker.join(',')).toBe(true);
    expect(transitions(operator)).toBe(0);
    const v = await view(sick.id);
    expect(v).toMatchObject({ rotation: 'out', signed_in: false });
    expect(v.rotation_reason).toMatch(/^no live session: sign-in failed: the login host did not answer/);
    expect((await view(healthy.id)).rotation).toBe('in');

    // Deposits the rule would give the sick bot go to the healthy one.
    for (let i = 0; i < 2; i++) expect((await deposit(user(0))).botId).toBe(healthy.id);
  });

  it('with no healthy bot left: 503, the spec envelope with Retry-After, never 500', async () => {
    const [, healthy] = w.bots;
    w.fake.refuseSignInsOf.add(healthy.fake.accountName);
    w.fake.expireSessionOf(healthy.fake);
    const partner = user(1);
    const res = await inventory(partner);
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body).toMatchObject({ success: false, message: 'service unavailable', data: [{ field: 'game', code: 'service_unavailable' }] });
    expect(res.headers['retry-after']).toBe('30');
    await w.platform.pollTick();
    expect((await inventory(user(0))).status).toBe(503);
    expect((await listed()).map((b) => b.rotation)).toEqual(['out', 'out']);
  });

  it('is back once a sign-in works and a signed-in call went through with the new session', async () => {
    w.fake.refuseSignInsOf.clear();
    await eventually(async () => {
      await w.platform.pollTick();
      return w.bots.every((b) => w.platform.rotationOf(b.id)?.rotation === 'in');
    }, 30_000, 100);
    await eventually(async () => (await listed()).every((b) => b.rotation === 'in' && b.signed_in), 5_000, 50);
    expect((await inventory(user(1))).status).toBe(200);
  });
});

describe('an operator disables and enables a bot', () => {
  it('the operator view and the picker agree at each answer; deposits follow the picker\'s rule over both bots again', async () => {
    const [a, b] = w.bots;
    const off = await w.gw.admin('POST', `/bots/${a.id}/disable`);
    expect(off.status).toBe(200);
    expect(off.body.data.rotation).not.toBe('in');
    expect(w.platform.rotationOf(a.id)?.rotation ?? 'out').toBe(off.body.data.rotation);
    for (let i = 0; i < 2; i++) expect((await deposit(user(i as 0 | 1))).botId).toBe(b.id);

    const on = await w.gw.admin('PATCH', `/bots/${a.id}`, { enabled: true });
    expect(on.status).toBe(200);
    expect(on.body.data).toMatchObject({ rotation: 'in', signed_in: true });
    expect(w.platform.rotationOf(a.id)?.rotation).toBe('in');
    // The rule: the bots in rotation by id, the deposit's id choosing the first.
    const byId = [a.id, b.id].sort((x, y) => x - y);
    const got: number[] = [];
    for (let i = 0; i < 6; i++) {
      const d = await deposit(user((i % 2) as 0 | 1));
      expect(d.botId, `deposit ${d.id}`).toBe(byId[d.id % 2]);
      got.push(d.botId);
    }
    expect(new Set(got).size).toBe(2);
  });
});

describe('a deposit whose picked bot\'s session died on the send', () => {
  it('goes out on the other bot (active, never failed); the sick bot is out with its reason', async () => {
    const [a, b] = w.bots;
    const byId = [a, b].sort((x, y) => x.id - y.id);
    const [first, second] = byId; // a deposit with an even id picks `first`
    expect(w.bots.every((x) => w.platform.rotationOf(x.id)?.rotation === 'in')).toBe(true);
    w.fake.refuseSignInsOf.add(first.fake.accountName);
    w.fake.expireSessionOf(first.fake);
    let d: { id: number; botId: number } | undefined;
    // The trade link check and the inventory go to `second` (odd partners); the send to the deposit's pick.
    for (let i = 0; i < 3 && !(d && d.id % 2 === 0); i++) d = await deposit(user(1));
    expect(d!.id % 2).toBe(0);
    expect(d!.botId).toBe(second.id);
    expect(w.platform.rotationOf(first.id)!.rotation).toBe('out');
    const v = await eventually(async () => {
      const x = await view(first.id);
      return x.rotation === 'out' ? x : undefined;
    }, 5_000, 20);
    expect(v.rotation_reason).toMatch(/^no live session: sign-in failed/);
  });
});
