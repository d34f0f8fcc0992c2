// JSON request bodies: Fastify's own parser, except that an empty body sent with
// `Content-Type: application/json` (many HTTP clients add the header to every POST) is read as {}
// on routes whose body is optional: no body schema, or one that requires nothing. Routes that
// require fields keep answering 400 `invalid request body` to an empty body.
import type { FastifyInstance, FastifyRequest } from 'fastify';

function bodyIsOptional(request: FastifyRequest): boolean {
  const schema = request.routeOptions.schema?.body as { required?: unknown[] } | undefined;
  return !schema || !Array.isArray(schema.required) || schema.required.length === 0;
}

export function registerJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser(app.initialConfig.onProtoPoisoning ?? 'error', app.initialConfig.onConstructorPoisoning ?? 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && bodyIsOptional(request)) return done(null, {});
    return parseJson(request, body as string, done);
  });
}
