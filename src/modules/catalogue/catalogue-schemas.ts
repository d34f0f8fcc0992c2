// TypeBox schemas of the catalogue endpoints (spec 4.11, 4.12 and the /purchase/events feed).
// page, full, extended and game are read as strings and checked by hand: the spec fixes their
// messages (`page must be 1 or greater`, `invalid game code`), which a schema error would not give.
// game and page are checked before the schema (the routes' preValidation hook), so a missing or
// over-long game is `invalid game code` and an over-long page `page must be 1 or greater`, the
// same as any other bad value; the schema keeps them for the documentation.
import { Type } from '@sinclair/typebox';
import { GAMES, isGame, type Game } from '../../domain/games.js';
import { AppError, validationError } from '../../http/errors.js';
import { IsoDate, Nullable, UsdAmount } from '../../http/schemas.js';

const QueryBool = Type.String({ maxLength: 5, description: 'true or false (also 1/0)' });

export const AvailableQuerySchema = Type.Object(
  {
    game: Type.String({ maxLength: 16, description: 'csgo, rust, dota2 or tf2' }),
    full: Type.Optional({ ...QueryBool, description: 'true: one entry per listing; false (default): grouped by name' }),
    extended: Type.Optional({ ...QueryBool, description: 'extra fields (full format only)' }),
    page: Type.Optional(Type.String({ maxLength: 32, description: 'page 1 to 16; omit for the whole catalogue in one (streamed) response' })),
  },
  { title: 'AvailableRequest' },
);

export const SearchQuerySchema = Type.Object(
  {
    game: Type.String({ maxLength: 16 }),
    names: Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { minItems: 1, maxItems: 50, description: 'repeat the parameter per name; at most 50' }),
    extended: Type.Optional(QueryBool),
  },
  { title: 'SearchRequest' },
);

export const EventsQuerySchema = Type.Object(
  {
    since: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'cursor (next of a previous answer, or a page last_update_at); omitted = from now' })),
    game: Type.Optional(Type.String({ maxLength: 16 })),
    extended: Type.Optional(QueryBool),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 })),
  },
  { title: 'CatalogueEventsRequest' },
);

export function parseGame(value: unknown): Game {
  if (!isGame(value)) {
    const code = value === undefined ? 'required' : 'oneof';
    throw new AppError('validation', 'invalid game code', [{ field: 'game', code, message: `game must be one of: ${GAMES.join(', ')}` }]);
  }
  return value;
}

/** `title`: the request schema's title, which prefixes the field (AvailableRequest.full, SearchRequest.extended…). */
export function parseBool(value: string | undefined, field: string, title: string): boolean {
  if (value === undefined || value === '') return false;
  const v = value.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw validationError([{ field: `${title}.${field}`, code: 'oneof', message: `${field} must be true or false` }]);
}

const PAGE_MAX_CHARS = 32;
const pageError = () => new AppError('validation', 'page must be 1 or greater', [{ field: 'page', code: 'min', message: 'page must be 1 or greater' }]);

/** page 0, negative, not a number (or not one value, or longer than 32 characters) → 400 `page must be 1 or greater` (spec 7.2). */
export function parsePage(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > PAGE_MAX_CHARS) throw pageError();
  const v = value.trim();
  if (!/^\d+$/.test(v) || Number(v) < 1) throw pageError();
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : Number.MAX_SAFE_INTEGER;
}

// ---- responses (spec 2.6) ----

const GameString = Type.String({ enum: [...GAMES] });

/** Full form: one entry per listing; optional fields are omitted when unknown, extended ones only with extended=true. */
export const ListingSchema = Type.Object(
  {
    id: Type.String({ description: 'listing ID: the asset_id to buy this very listing' }),
    name: Type.String(),
    price: UsdAmount('price for this merchant (USD)'),
    image_url: Type.String(),
    exterior: Type.Optional(Type.String()),
    rarity: Type.Optional(Type.String()),
    rarity_color: Type.Optional(Type.String({ description: 'hex colour without #' })),
    class_id: Type.Optional(Type.Integer({ description: 'extended' })),
    instance_id: Type.Optional(Type.Integer({ description: 'extended' })),
    asset_id: Type.Optional(Type.String({ description: 'extended' })),
    float: Type.Optional(Type.Number({ description: 'extended (csgo)' })),
    paint_seed: Type.Optional(Type.Integer({ description: 'extended (csgo)' })),
    inspect_url: Type.Optional(Type.String({ description: 'extended' })),
    phase: Type.Optional(Type.String({ description: 'extended (doppler phases)' })),
  },
  { title: 'Listing' },
);

/** Grouped form (default): one entry per item name with the cheapest price. */
export const GroupSchema = Type.Object(
  {
    name: Type.String(),
    count: Type.Integer({ description: 'live listings with this name' }),
    price: UsdAmount('the cheapest listing (USD)'),
    game: GameString,
    image_url: Type.String(),
  },
  { title: 'ListingGroup' },
);

const CatalogueItems = Type.Array(Type.Union([ListingSchema, GroupSchema]), { description: 'Listing entries with full=true, ListingGroup entries otherwise' });

export const CataloguePageSchema = Type.Object(
  {
    game: GameString,
    total: Type.Integer({ description: 'live listings (full) or names (grouped) of the game' }),
    items: CatalogueItems,
    page: Type.Integer({ minimum: 1 }),
    total_pages: Type.Integer({ description: '16 with full=true, 1 grouped' }),
    count: Type.Integer({ description: 'entries on this page' }),
    next: Nullable(Type.String({ description: 'query string of the next page' })),
    previous: Nullable(Type.String({ description: 'query string of the previous page' })),
    last_update_at: IsoDate('last change of this page: a cursor for /purchase/events'),
  },
  { title: 'CataloguePage' },
);

export const CatalogueWholeSchema = Type.Object(
  { game: GameString, items: CatalogueItems, total: Type.Integer({ description: 'entries in items' }) },
  { title: 'CatalogueWhole' },
);

export const SearchResultSchema = Type.Object({ game: GameString, total: Type.Integer(), items: Type.Array(ListingSchema) }, { title: 'SearchResult' });

export const CatalogueEventsSchema = Type.Object(
  {
    since: IsoDate('the cursor this answer starts at'),
    next: IsoDate('pass as since to continue'),
    count: Type.Integer(),
    more: Type.Boolean({ description: 'true: more events wait after next; ask again at once' }),
    reset: Type.Boolean({ description: 'true: since is older than the kept history; reload the catalogue, then continue from next' }),
    events: Type.Array(
      Type.Object({
        type: Type.String({ enum: ['upsert', 'remove'] }),
        at: IsoDate(),
        game: GameString,
        id: Type.String({ description: 'listing ID' }),
        item: Type.Optional(ListingSchema),
      }),
    ),
  },
  { title: 'CatalogueEvents' },
);
