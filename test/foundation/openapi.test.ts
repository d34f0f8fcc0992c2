import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
});
afterAll(async () => gw?.stop());

describe('/openapi.json covers every API route', () => {
  it('documents every merchant, admin and hosted JSON route registered on the server', async () => {
    const doc = (await gw.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const documented = new Set<string>();
    for (const [p, ops] of Object.entries<Record<string, unknown>>(doc.paths)) for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} ${p}`);

    // Every route registered under the API prefixes, in OpenAPI path syntax.
    const missing: string[] = [];
    const apiRoutes = gw.app.routeList.filter((r) => /^\/api\//.test(r.url) && !r.hidden);
    for (const r of apiRoutes) {
      const openapiPath = r.url.replace(/:(\w+)/g, '{$1}');
      for (const method of r.methods) {
        if (method === 'HEAD' || method === 'OPTIONS') continue;
        if (!documented.has(`${method} ${openapiPath}`)) missing.push(`${method} ${openapiPath}`);
      }
    }
    expect(apiRoutes.length).toBeGreaterThan(30);
    expect(missing).toEqual([]);
  });

  it('the merchant routes of the spec are all there', async () => {
    const doc = (await gw.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const p of [
      'create-intent', 'inventory', 'create-deposit', 'get-prices', 'create-deposit-by-hash-name', 'deposit-preview',
      'deposit/status', 'purchase', 'purchase/status', 'purchase/available', 'purchase/search', 'purchase/events', 'balance',
    ]) {
      expect(doc.paths[`/api/v1/merchant/${p}`], p).toBeDefined();
    }
  });
});

