// Control and invisible formatting characters (Unicode Cc, Cf, U+2028, U+2029) are refused in
// identifiers and names, with the rule named in the spec's validation envelope: merchant_tx_id
// wherever it is accepted (deposits, purchases, status lookups, hosted intents), whitespace at
// either end of it too (the spec is silent on it), top-up and withdrawal references, custom_currency
// and merchant names (admin API, CLI, console). Every other character, of any script, still passes.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT_MS, cliGateway } from '../cli-run.js';
import { userOf } from '../dashboard/web-client.js';
import { textProblem } from '../../src/domain/text-rules.js';

/** One of each kind of forbidden character (NUL is refused earlier, by the JSON edge: edges.ts). */
const FORBIDDEN: Record<string, string> = {
  'U+0009 tab': '\t',
  'U+000A LF': '\n',
  'U+000D CR': '\r',
  'U+0001': '\u0001',
  'U+001F': '\u001F',
  'U+007F DEL': '\u007F',
  'U+0085 NEL': '\u0085',
  'U+009F': '\u009F',
  'U+00AD soft hyphen': '\u00AD',
  'U+061C arabic letter mark': '\u061C',
  'U+200B zero-width space': '\u200B',
  'U+200C ZWNJ': '\u200C',
  'U+200D ZWJ': '\u200D',
  'U+200E LRM': '\u200E',
  'U+200F RLM': '\u200F',
  'U+202A LRE': '\u202A',
  'U+202B RLE': '\u202B',
  'U+202C PDF': '\u202C',
  'U+202D LRO': '\u202D',
  'U+202E RLO': '\u202E',
  'U+2028 line separator': '\u2028',
  'U+2029 paragraph separator': '\u2029',
  'U+2060 word joiner': '\u2060',
  'U+2066 LRI': '\u2066',
  'U+2067 RLI': '\u2067',
  'U+2068 FSI': '\u2068',
  'U+2069 PDI': '\u2069',
  'U+FEFF BOM': '\uFEFF',
  'U+E0001 language tag': '\u{E0001}',
};
const codeOf = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
const CONTROL_RULE = 'must not contain control or invisible formatting characters (Unicode Cc, Cf, U+2028, U+2029)';
const EDGE_RULE = 'must not begin or end with whitespace';
const EDGES = [' a', 'a ', '  a  ', '\u00A0a', 'a\u3000', '\u2003a'];
/** Values that must stay accepted: letters of any script, spaces inside, symbols, emoji, the longest. */
const ALLOWED = ['order-1', 'заказ-42', '注文#42', 'طلب-7', 'Ωμέγα_ü', 'a b c', 'a\u00A0b', 'émoji-🎉', 'x'.repeat(128), 'a/b?c=d&e', '"quoted"'];

const state = cliGateway();
const merchantOf = async () => {
  const m = await state.gw.createMerchant({ name: 'Text rules' });
  return m as { id: number; api_key: string };
};

describe('the rule', () => {
  it('names the character and where it is; accepts the rest', () => {
    for (const [what, c] of Object.entries(FORBIDDEN)) {
      const p = textProblem(`ab${c}c`, 'line');
      expect(p?.rule, what).toBe('control_character');
      expect(p?.message, what).toBe(`${CONTROL_RULE}: ${codeOf(c)} at character 3`);
    }
    for (const v of EDGES) expect(textProblem(v, 'identifier')?.rule, JSON.stringify(v)).toBe('edge_whitespace');
    for (const v of EDGES) expect(textProblem(v, 'line'), JSON.stringify(v)).toBeUndefined();
    for (const v of ALLOWED) expect(textProblem(v, 'identifier'), v).toBeUndefined();
  });
});

describe('merchant_tx_id', () => {
  it('create-intent: each forbidden character and edge whitespace refused with the rule named; allowed values of any script accepted', async () => {
    const m = await merchantOf();
    for (const [what, c] of Object.entries(FORBIDDEN)) {
      const r = await state.gw.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: `tx${c}1` });
      expect(r.status, what).toBe(400);
      expect(r.body).toMatchObject({ success: false, message: 'validation error' });
      expect(r.body.data, what).toEqual([{ field: 'CreateIntentRequest.merchant_tx_id', code: 'format', message: `merchant_tx_id ${CONTROL_RULE}: ${codeOf(c)} at character 3` }]);
    }
    for (const v of EDGES) {
      const r = await state.gw.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: v });
      expect(r.status, JSON.stringify(v)).toBe(400);
      expect(r.body.data[0]).toMatchObject({ field: 'CreateIntentRequest.merchant_tx_id', code: 'format', message: `merchant_tx_id ${EDGE_RULE}` });
    }
    for (const v of ALLOWED) {
      const r = await state.gw.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: v });
      expect(r.status, v).toBe(200);
      expect(r.body.data.merchant_tx_id).toBe(v);
    }
    // the intents are deposits: exactly the allowed ones were stored, as sent
    const stored = await sql<{ merchant_tx_id: string }>`select merchant_tx_id from deposits where merchant_id = ${m.id} order by id`.execute(state.gw.ctx.db);
    expect(stored.rows.map((r) => r.merchant_tx_id)).toEqual(ALLOWED);
  });

  it('create-deposit, create-deposit-by-hash-name, purchase and both status lookups refuse it too', async () => {
    const m = await merchantOf();
    const tab = 'tx\t1';
    const bodies: [string, string, Record<string, unknown>][] = [
      ['/create-deposit', 'CreateDepositRequest', { merchant_tx_id: tab, game: 'csgo', partner: 12345678, token: 'abcdefgh', asset_ids: ['1'] }],
      ['/create-deposit-by-hash-name', 'CreateDepositByHashNameRequest', { merchant_tx_id: tab, id: 1 }],
      ['/purchase', 'CreatePurchaseRequest', { merchant_tx_id: tab, game: 'csgo', partner: 12345678, token: 'abcdefgh', name: 'x' }],
    ];
    for (const [path, title, body] of bodies) {
      const r = await state.gw.merchant(m.api_key, 'POST', path, body);
      expect(r.status, path).toBe(400);
      expect(r.body.data, path).toContainEqual({ field: `${title}.merchant_tx_id`, code: 'format', message: `merchant_tx_id ${CONTROL_RULE}: U+0009 at character 3` });
    }
    for (const [path, title] of [['/deposit/status', 'DepositStatusQuery'], ['/purchase/status', 'PurchaseStatusRequest']]) {
      const bad = await state.gw.merchant(m.api_key, 'GET', `${path}?merchant_tx_id=a%E2%80%AEb`);
      expect(bad.status, path).toBe(400);
      expect(bad.body.data, path).toContainEqual({ field: `${title}.merchant_tx_id`, code: 'format', message: `merchant_tx_id ${CONTROL_RULE}: U+202E at character 2` });
      const edge = await state.gw.merchant(m.api_key, 'GET', `${path}?merchant_tx_id=%20a`);
      expect(edge.status, path).toBe(400);
      expect(edge.body.data[0].message).toBe(`merchant_tx_id ${EDGE_RULE}`);
      // an allowed value of another script is looked up (nothing there: 404)
      expect((await state.gw.merchant(m.api_key, 'GET', `${path}?merchant_tx_id=${encodeURIComponent('заказ 1')}`)).status, path).toBe(404);
    }
  });

  it('custom_currency: a control character is refused with the rule', async () => {
    const m = await merchantOf();
    const r = await state.gw.merchant(m.api_key, 'POST', '/create-deposit', { merchant_tx_id: 'cc-1', game: 'csgo', partner: 12345678, token: 'abcdefgh', asset_ids: ['1'], custom_currency: 'coins\u200B' });
    expect(r.status).toBe(400);
    expect(r.body.data).toContainEqual({ field: 'CreateDepositRequest.custom_currency', code: 'format', message: `custom_currency ${CONTROL_RULE}: U+200B at character 6` });
  });
});

describe('merchant names and references', () => {
  it('the admin API refuses a control character in a name (create and update) and in a top-up or withdrawal reference; other scripts pass', async () => {
    const { gw } = state;
    for (const [what, c] of Object.entries(FORBIDDEN)) {
      const r = await gw.admin('POST', '/merchants', { name: `Shop${c}` });
      expect(r.status, what).toBe(400);
      expect(r.body.data, what).toContainEqual({ field: 'name', code: 'format', message: `name ${CONTROL_RULE}: ${codeOf(c)} at character 5` });
    }
    const ok = await gw.admin('POST', '/merchants', { name: 'Магазин «Ёж» 商店 🎮' });
    expect(ok.status).toBe(201);
    const id = ok.body.data.id as number;
    const patched = await gw.admin('PATCH', `/merchants/${id}`, { name: 'Shop\u202Egnp.exe' });
    expect(patched.status).toBe(400);
    expect(patched.body.data[0]).toMatchObject({ field: 'name', code: 'format' });
    expect((await gw.admin('GET', `/merchants/${id}`)).body.data.name).toBe('Магазин «Ёж» 商店 🎮');

    for (const reference of ['bank\n2026', 'ref\u200B1', ' ref', 'ref ']) {
      const top = await gw.admin('POST', `/merchants/${id}/top-ups`, { amount: 1, reference });
      expect(top.status, JSON.stringify(reference)).toBe(400);
      expect(top.body.data[0]).toMatchObject({ field: 'reference', code: 'format' });
      const w = await gw.admin('POST', `/merchants/${id}/withdrawals`, { amount: 1, reference });
      expect(w.status, JSON.stringify(reference)).toBe(400);
      expect(w.body.data[0]).toMatchObject({ field: 'reference', code: 'format' });
    }
    expect((await gw.admin('POST', `/merchants/${id}/top-ups`, { amount: 1, reference: 'virement n°42 — été' })).status).toBe(201);
  });

  it('the CLI and the console refuse a control character in a merchant name', async () => {
    const { gw, cli } = state;
    const r = await cli('merchant', 'create', '--name', 'CLI\u2066shop');
    expect(r.code).not.toBe(0);
    expect(r.err + r.out).toContain(`name ${CONTROL_RULE}: U+2066 at character 4`);
    const fine = await cli('merchant', 'create', '--name', 'CLI магазин');
    expect(fine.code, fine.err).toBe(0);

    const op = await userOf(gw, null, 'op@text-rules.example');
    await op.get('/console');
    const page = await op.post('/console/merchants', { name: 'Console\u200Fshop' });
    expect(page.status).toBe(400);
    expect(page.body).toContain('U+200F');
    const names = await sql<{ name: string }>`select name from merchants`.execute(gw.ctx.db);
    expect(names.rows.some((n) => /[\p{Cc}\p{Cf}\u2028\u2029]/u.test(n.name))).toBe(false);
  }, CLI_TEST_TIMEOUT_MS);
});
