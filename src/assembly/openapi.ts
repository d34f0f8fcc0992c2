// The OpenAPI 3.1 document (/openapi.json, generated from the route schemas and finished by
// openapi-document.ts). The docs site that renders it is src/modules/docs/ (/docs).
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { finishDocument } from './openapi-document.js';

export const OPENAPI_PATH = '/openapi.json';

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Skin Trading Gateway', version: '1.0.0' },
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'The merchant API key (`sk_…`), from your backend only.' },
          AdminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (`ADMIN_TOKEN`).' },
        },
      },
    },
    transformObject: (documentObject) => finishDocument((documentObject as { openapiObject: Record<string, unknown> }).openapiObject) as never,
  });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async (_req, reply) => {
    reply.header('content-disposition', 'inline; filename="openapi.json"');
    return app.swagger();
  });
}
