// The document as a product: a TypeScript client generated from the /openapi.json a running
// gateway serves (openapi-typescript + openapi-fetch) type-checks together with a merchant's
// integration code (client-flow.ts), and that code runs a full merchant flow over real HTTP.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { compileStrict } from './response-check.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const GENERATED = path.join(HERE, 'generated');
const FLOW = path.join(HERE, 'client-flow.ts');

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  const doc = await (await fetch(`${gw.url}/openapi.json`)).json();
  await fs.mkdir(GENERATED, { recursive: true });
  await fs.writeFile(path.join(GENERATED, 'api.d.ts'), astToString(await openapiTS(doc)));
});
afterAll(async () => gw?.stop());

function typeErrors(files: string[]): string[] {
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('a client generated from the served document', () => {
  it('types every operation: each 2xx answer of each operation has a typed JSON body', async () => {
    const text = await fs.readFile(path.join(GENERATED, 'api.d.ts'), 'utf8');
    const doc = await (await fetch(`${gw.url}/openapi.json`)).json();
    const ids: string[] = [];
    for (const ops of Object.values<any>(doc.paths)) for (const op of Object.values<any>(ops)) ids.push(op.operationId);
    expect(ids.length).toBeGreaterThan(30);
    const untyped: string[] = [];
    for (const id of ids) {
      const start = text.indexOf(`\n    ${id}: {`);
      expect(start, id).toBeGreaterThan(0);
      const block = text.slice(start, text.indexOf('\n    };', start));
      const success = [...block.matchAll(/\n {12}(20\d): \{([\s\S]*?)\n {12}\};/g)];
      if (success.length === 0 || success.some(([, , body]) => !/"application\/json": \{/.test(body))) untyped.push(id);
    }
    expect(untyped).toEqual([]);
  });

  it('the merchant integration type-checks against the generated types', () => {
    expect(typeErrors([FLOW])).toEqual([]);
  });

  it('the types are strict enough to catch a misuse', async () => {
    const bad = path.join(GENERATED, 'misuse.ts');
    await fs.writeFile(
      bad,
      `import createClient from 'openapi-fetch';\nimport type { paths } from './api.js';\n` +
        `const api = createClient<paths>({ baseUrl: '' });\n` +
        `export async function f() {\n  const r = await api.GET('/api/v1/merchant/balance');\n  return r.data?.data.total.toUpperCase();\n}\n` +
        `export async function g() {\n  return api.POST('/api/v1/merchant/inventory', { body: { game: 'chess', partner: 1, token: 'x' } });\n}\n`,
    );
    const errors = typeErrors([bad]).join('\n');
    expect(errors).toMatch(/toUpperCase/);
    expect(errors).toMatch(/"chess"/);
  });

  it('runs the merchant flow over HTTP: inventory → deposit → status; catalogue page + ETag; purchase → status → history', async () => {
    const m = await gw.createMerchant({ name: 'Client shop' });
    await gw.topUp(m.id, 5000);
    // Imported by path: the project's type-check leaves client-flow.ts out (its types are generated here).
    const { runMerchantFlow } = (await import(/* @vite-ignore */ FLOW)) as { runMerchantFlow: (url: string, key: string) => Promise<any> };
    const r = await runMerchantFlow(gw.url, m.api_key);

    expect(r.inventory.count).toBeGreaterThan(0);
    expect(r.inventory.maxItems).toBe(50);
    expect(r.deposit.status).toBe('active');
    expect(r.deposit.statusId).toBe(r.deposit.id);
    expect(r.deposit.duplicateStatus).toBe(409);
    expect(r.deposit.duplicateCode).toBe('exist');

    expect(r.catalogue.pageStatus).toBe(200);
    expect(r.catalogue.etag).toMatch(/^(W\/)?".+"$/);
    expect(r.catalogue.notModifiedStatus).toBe(304);
    expect(r.catalogue).toMatchObject({ page: 1, totalPages: 16 });
    expect(r.catalogue.count).toBeGreaterThan(0);

    expect(r.purchase.status).toBe('pending');
    expect(r.purchase.statusId).toBe(r.purchase.id);
    expect(r.purchase.historyIds).toEqual([r.purchase.id]);
    expect(r.purchase.historyTotal).toBe(1);
    expect(r.balance.total).toBeCloseTo(r.balance.available + r.balance.hold, 3);
    expect(r.balance.available).toBeLessThan(5000); // the purchase is paid for from available
  });

  it('the streamed whole catalogue (grouped, full, extended) matches the documented 200 answer', async () => {
    const m = await gw.createMerchant({ name: 'Download shop' });
    const doc = await (await fetch(`${gw.url}/openapi.json`)).json();
    const schema = doc.paths['/api/v1/merchant/purchase/available'].get.responses['200'].content['application/json'].schema;
    const validate = compileStrict(doc, schema);
    for (const q of ['game=csgo', 'game=csgo&full=true', 'game=csgo&full=true&extended=true']) {
      const res = await fetch(`${gw.url}/api/v1/merchant/purchase/available?${q}`, { headers: { 'x-api-key': m.api_key } });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.data.items.length, q).toBeGreaterThan(0);
      expect(validate(body), q).toBeUndefined();
    }
  });
});
