// Route plugins typed by their schemas (the TypeBox type provider): a handler reads req.body,
// req.query and req.params as the static types of the schemas it declares, never through an `as`
// cast (test/foundation/no-request-casts.test.ts fails when one comes back). Types only: the
// validation stays Ajv's (http/validation.ts), so the 400s on the wire are unchanged.
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';

/** What a feature's route factory returns. */
export type TypedPlugin = FastifyPluginAsyncTypebox;

/** The app a page group registers its routes on (the dashboard's and the console's page files). */
export type TypedApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/**
 * The response schema of an answer written pre-serialised (bytes, a stream, an empty 304): it
 * documents the answer in the OpenAPI document, but Fastify does not serialise it, so it types no reply.
 */
export const Preserialised = <T extends TSchema>(schema: T) => Type.Unsafe<unknown>(schema);

/** A field of a request part no schema typed (an HTML page's query, a hook before validation): unknown until checked. */
export const fieldOf = (part: unknown, name: string): unknown => (typeof part === 'object' && part !== null ? Reflect.get(part, name) : undefined);

/** The string fields of a request part no schema typed (an HTML page's query or params, a form body); a repeated field (an array) is left out. */
export const stringFields = (part: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(typeof part === 'object' && part !== null ? part : {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
