// The OpenAPI document served by a running gateway is valid for two independent tools
// (swagger-parser against the official OpenAPI 3.1 schema; Redocly's recommended rules), and
// complete: every operation has an id, a tag of the spec's sections, typed success and error
// answers, examples that match their schemas; both webhooks are described.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { OPERATIONS } from '../../src/assembly/openapi-operations.js';
import { compileStrict } from './response-check.js';

let gw: TestGateway;
let doc: any;
beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  const res = await fetch(`${gw.url}/openapi.json`);
  expect(res.status).toBe(200);
  doc = await res.json();
});
afterAll(async () => gw?.stop());

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
function operations(): [string, string, any][] {
  const out: [string, string, any][] = [];
  for (const [p, ops] of Object.entries<any>(doc.paths)) for (const m of METHODS) if (ops[m]) out.push([p, m, ops[m]]);
  return out;
}

describe('the document is valid OpenAPI 3.1', () => {
  it('declares 3.1 and passes @apidevtools/swagger-parser validation (schema and semantics)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
  });

  it('swagger-parser refuses a broken document (the check can fail)', async () => {
    const broken = structuredClone(doc);
    broken.paths['/api/v1/merchant/balance'].get.parameters = [{ name: 'page', schema: { type: 'string' } }]; // no `in`
    await expect(SwaggerParser.validate(broken)).rejects.toThrow();
  });

  it('passes Redocly lint with the recommended rules: no error and no warning', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} @ ${p.location?.[0]?.pointer}`)).toEqual([]);
  });

  it('Redocly reports a duplicated operationId (the lint can fail)', async () => {
    const broken = structuredClone(doc);
    broken.paths['/api/v1/merchant/balance'].get.operationId = 'createDeposit';
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(broken), absoluteRef: 'openapi.json', config });
    expect(problems.some((p) => p.ruleId === 'operation-operationId-unique')).toBe(true);
  });
});

describe('the document is complete', () => {
  it('every operation is in the operation table, with a unique id and one tag of the declared sections', () => {
    const tags = new Set(doc.tags.map((t: any) => t.name));
    const ids = new Set<string>();
    const ops = operations();
    expect(ops.length).toBe(Object.keys(OPERATIONS).length);
    for (const [p, m, op] of ops) {
      expect(OPERATIONS[`${m} ${p}`], `${m} ${p}`).toBeDefined();
      expect(op.operationId, `${m} ${p}`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(ids.has(op.operationId)).toBe(false);
      ids.add(op.operationId);
      expect(op.tags).toHaveLength(1);
      expect(tags.has(op.tags[0]), op.tags[0]).toBe(true);
      expect(op.summary && op.description, `${m} ${p}`).toBeTruthy();
    }
  });

  it('every operation has a typed JSON success answer with an example, and typed error answers', () => {
    for (const [p, m, op] of operations()) {
      const success = Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s));
      expect(success.length, `${m} ${p}`).toBeGreaterThan(0);
      for (const s of success) {
        const media = op.responses[s].content?.['application/json'];
        expect(media?.schema?.properties?.data, `${m} ${p} ${s}`).toBeDefined();
        expect(media.example, `${m} ${p} ${s} example`).toBeDefined();
      }
      expect(op.responses['400'] ?? op.responses['401'], `${m} ${p}`).toBeDefined();
      if (op.requestBody) expect(op.requestBody.content['application/json'].examples?.example, `${m} ${p} request example`).toBeDefined();
      for (const param of op.parameters ?? []) expect(param.example, `${m} ${p} parameter ${param.name}`).toBeDefined();
    }
  });

  it('every error answer is the envelope; validation errors carry the {field, code, message} list', () => {
    expect(doc.components.schemas.Error.properties.data.items.$ref).toBe('#/components/schemas/FieldError');
    expect(doc.components.schemas.FieldError.required).toEqual(['field', 'code', 'message']);
    expect(doc.components.responses.ServiceUnavailable.headers['Retry-After']).toBeDefined();
    const available = doc.paths['/api/v1/merchant/purchase/available'].get;
    expect(available.responses['304'].$ref).toBe('#/components/responses/NotModified');
    expect(available.responses['503'].$ref).toBe('#/components/responses/ServiceUnavailable');
    expect(available.responses['200'].headers.ETag).toBeDefined();
    expect(doc.paths['/api/v1/merchant/create-deposit'].post.responses['409'].$ref).toBe('#/components/responses/Conflict');
  });

  it('every example (requests, answers, errors, webhooks) matches its schema, with no undocumented field', () => {
    const bad: string[] = [];
    const check = (where: string, schema: unknown, value: unknown) => {
      const errors = compileStrict(doc, schema)(value);
      if (errors) bad.push(`${where}: ${errors}`);
    };
    for (const [p, m, op] of operations()) {
      const body = op.requestBody?.content?.['application/json'];
      for (const [name, ex] of Object.entries<any>(body?.examples ?? {})) check(`${m} ${p} request ${name}`, body.schema, ex.value);
      for (const [s, r] of Object.entries<any>(op.responses)) {
        const media = r.content?.['application/json'];
        if (media?.example !== undefined) check(`${m} ${p} ${s}`, media.schema, media.example);
      }
    }
    for (const [name, r] of Object.entries<any>(doc.components.responses)) {
      const media = r.content?.['application/json'];
      for (const [k, ex] of Object.entries<any>(media?.examples ?? {})) check(`${name} ${k}`, media.schema, ex.value);
    }
    for (const [p, m, op] of operations()) for (const param of op.parameters ?? []) check(`${m} ${p} parameter ${param.name}`, param.schema, param.example);
    for (const [name, w] of Object.entries<any>(doc.webhooks)) {
      const media = w.post.requestBody.content['application/json'];
      check(`webhook ${name}`, media.schema, media.example);
    }
    expect(bad).toEqual([]);
  });

  it('describes both webhooks with both signature schemes', () => {
    const dep = doc.webhooks.depositStatusChanged.post;
    const pur = doc.webhooks.purchaseStatusChanged.post;
    for (const w of [dep, pur]) {
      expect(w.parameters.map((h: any) => h.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    }
    expect(doc.components.schemas.DepositWebhook.required).toEqual(expect.arrayContaining(['sign', 'trade_id', 'status', 'amount']));
    expect(doc.components.schemas.PurchaseWebhook.required).toEqual(expect.arrayContaining(['sign', 'purchase_id', 'status', 'amount']));
    expect(doc.info.description).toContain('verifyStandard');
    expect(doc.info.description).toContain('verifySign');
  });

  it('has the guide pages: authentication, errors, idempotency, webhooks, sandbox with magic partners', () => {
    for (const h of ['## Authentication', '## Errors', '## Idempotency', '## Webhooks', '## Sandbox', '90000013', '/openapi.json']) {
      expect(doc.info.description).toContain(h);
    }
  });

  it('no JSON-Schema keyword of another OpenAPI version: no `nullable`, no boolean exclusiveMinimum', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toContain('"nullable"');
    expect(text).not.toMatch(/"exclusiveMinimum":(true|false)/);
    // A strict lower bound is written the 3.1 way: a number, not a boolean beside `minimum`.
    const amount = doc.paths['/api/admin/merchants/{id}/top-ups'].post.requestBody.content['application/json'].schema.properties.amount;
    expect(amount.exclusiveMinimum).toBe(0);
  });
});
