// Kysely table types of this feature; DB in src/db/types.ts is the union of every feature's tables.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PurchaseTables {}
