// The response check itself: it must catch an undocumented field, a wrong type, an undocumented
// status, and let a documented answer through — or the suite-wide check proves nothing.
import { afterEach, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import { installResponseCheck, takeViolations } from './response-check.js';
import { finishDocument } from '../../src/assembly/openapi-document.js';

async function appWith(answer: () => { status: number; body: unknown }) {
  const app = Fastify();
  await app.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } }, transformObject: (d) => finishDocument((d as { openapiObject: Record<string, unknown> }).openapiObject) as never });
  installResponseCheck(app);
  app.get(
    '/api/v1/merchant/balance',
    {
      schema: {
        response: {
          200: {
            type: 'object',
            properties: { success: { type: 'boolean' }, message: { type: 'string' }, data: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] } },
            required: ['success', 'message', 'data'],
          },
        },
      },
    },
    async (_req, reply) => {
      const a = answer();
      return reply.code(a.status as 200).send(a.body);
    },
  );
  await app.ready();
  return app;
}

afterEach(() => {
  takeViolations();
});

describe('response check', () => {
  it('lets a documented answer through', async () => {
    const app = await appWith(() => ({ status: 200, body: { success: true, message: 'ok', data: { total: 1.5 } } }));
    expect((await app.inject('/api/v1/merchant/balance')).statusCode).toBe(200);
    expect(takeViolations()).toEqual([]);
    await app.close();
  });

  it('reports a field the schema does not name, although the serialiser would drop it', async () => {
    const app = await appWith(() => ({ status: 200, body: { success: true, message: 'ok', data: { total: 1.5, secret: 'x' } } }));
    const res = await app.inject('/api/v1/merchant/balance');
    expect(res.json().data).toEqual({ total: 1.5 });
    expect(takeViolations().join('\n')).toMatch(/must NOT have additional properties \(secret\)/);
    await app.close();
  });

  it('reports a wrong type', async () => {
    const app = await appWith(() => ({ status: 200, body: { success: true, message: 'ok', data: { total: 'many' } } }));
    await app.inject('/api/v1/merchant/balance');
    expect(takeViolations().join('\n')).toMatch(/\/data\/total must be number/);
    await app.close();
  });

  it('reports a status code the operation does not document', async () => {
    const app = await appWith(() => ({ status: 418, body: { success: false, message: 'teapot' } }));
    await app.inject('/api/v1/merchant/balance');
    expect(takeViolations().join('\n')).toMatch(/status 418 is not documented/);
    await app.close();
  });

  it('checks documented error answers against the error envelope', async () => {
    const app = await appWith(() => ({ status: 401, body: { success: false, message: 'invalid API key', data: [{ field: 'x' }] } }));
    await app.inject('/api/v1/merchant/balance');
    expect(takeViolations().join('\n')).toMatch(/401: .*must have required property 'code'/);
    await app.close();
  });
});
