// Column types shared by every table type (leaf: imports nothing of ours).
import type { ColumnType } from 'kysely';

/** timestamptz: read as a Date, written as a Date or an ISO string; filled by default when omitted. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** A nullable timestamptz. */
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
