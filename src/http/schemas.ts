// Shared TypeBox pieces for route schemas.
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { GAMES } from '../domain/games.js';

export const GameSchema = Type.Union(GAMES.map((g) => Type.Literal(g)), { description: 'csgo, rust, dota2 or tf2' });
/** A string of a fixed list, typed as that list's union (one `enum` on the wire, as Type.String gives). */
export const StringEnum = <T extends string>(values: readonly T[], options: { description?: string; default?: NoInfer<T> } = {}) =>
  Type.Unsafe<T>(Type.String({ enum: [...values], ...options }));
export const GameEnum = StringEnum(GAMES);
export const HttpUrl = Type.String({ format: 'http-url', maxLength: 2048 });
export const Partner = Type.Integer({ minimum: 8, maximum: 4294967295, description: 'Trade partner ID (32-bit account ID)' });
export const Token = Type.String({ minLength: 8, maxLength: 8, description: 'Trade token, exactly 8 characters' });
/**
 * The text rules of src/domain/text-rules.ts on a string field (checked by validation.ts): an
 * identifier has no control or invisible formatting character and no whitespace at either end; a
 * line (a name) has no control or invisible formatting character.
 */
export const TextRule = (kind: 'identifier' | 'line') => ({ 'x-text': kind });
export const MerchantTxId = Type.String({
  minLength: 1,
  maxLength: 128,
  ...TextRule('identifier'),
  description: 'your order id, unique per merchant: 1 to 128 characters, any script; no control or invisible formatting characters (Unicode Cc, Cf, U+2028, U+2029), no whitespace at either end',
});
/** USD amount: at most 3 decimals is checked by the service (money.usdToMills). */
export const Usd = Type.Number({ minimum: 0, maximum: 1_000_000_000 });
export const IdParam = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 9007199254740991 }) }, { title: 'Params' });
/**
 * A query schema whose `filled` fields have a default: optional on the wire (and in the document),
 * but Ajv (useDefaults) fills them before the handler runs, so the handler's type has them.
 */
export const WithDefaults = <T extends TObject, K extends keyof Static<T>>(schema: T, ..._filled: K[]) =>
  Type.Unsafe<Omit<Static<T>, K> & { [P in K]-?: Exclude<Static<T>[P], undefined> }>(schema);
export const Paging = (title: string, maxLimit = 500) =>
  WithDefaults(
    Type.Object(
      {
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxLimit, default: 50 })),
        offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 })),
      },
      { title },
    ),
    'limit',
    'offset',
  );

export function envelopeOf(data: TSchema) {
  return Type.Object({ success: Type.Boolean(), message: Type.String(), data });
}

export const merchantSecurity = [{ ApiKey: [] }];
export const adminSecurity = [{ AdminToken: [] }];

/** Fields that may be null; the OpenAPI 3.1 document shows them as `type: [T, "null"]`. */
export const Nullable = <T extends TSchema>(s: T) => Type.Unsafe<T['static'] | null>({ ...s, nullable: true });

/** USD amount on the wire: a number with at most three decimals, printed exactly. */
export const UsdAmount = (description?: string) => Type.Number(description ? { description } : {});
export const IsoDate = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });
