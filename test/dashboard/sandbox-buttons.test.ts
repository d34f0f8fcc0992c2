// Issue 24: a record page shows only the sandbox helpers its status allows, and each button shown
// works (the one-past case: a completed deposit shows none, so no button leads to a 409).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { userOf, type WebClient } from './web-client.js';
import { activeDeposit } from '../deposits/deposit-helpers.js';

let gw: TestGateway;
let m: Awaited<ReturnType<TestGateway['createMerchant']>>;
let owner: WebClient;

beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  m = await gw.createMerchant({ name: 'Buttons' });
  owner = await userOf(gw, m.id, 'buttons@sandbox.example');
});
afterAll(async () => gw?.stop());

const buttons = (body: string) => [...body.matchAll(/<button type="submit"[^>]*>([^<]+)<\/button>/g)].map((x) => x[1]).filter((b) => b !== 'Sign out' && b !== 'Redeliver');

describe('sandbox helper buttons', () => {
  it('active: accept, decline, expire, cancel; hold: release and revert; completed: none', async () => {
    const d = await activeDeposit(gw, m.api_key);
    expect(buttons((await owner.get(`/dashboard/deposits/${d.id}`)).body)).toEqual(['Accept (no hold)', 'Accept with hold', 'Decline', 'Expire', 'Cancel']);

    expect((await owner.post(`/dashboard/deposits/${d.id}/sandbox/accept`, { hold: 'true' })).status).toBe(303);
    expect(buttons((await owner.get(`/dashboard/deposits/${d.id}`)).body)).toEqual(['Release', 'Revert (by user)']);

    expect((await owner.post(`/dashboard/deposits/${d.id}/sandbox/release`)).status).toBe(303);
    const completed = (await owner.get(`/dashboard/deposits/${d.id}`)).body;
    expect(buttons(completed)).toEqual([]);
    expect(completed).toContain('No test helper applies to a deposit in status completed.');
  });
});
