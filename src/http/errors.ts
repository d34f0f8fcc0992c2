// Error kinds on the wire: the one kind → HTTP status table, and the one mapping of errors that are
// not ours (a database that is away) to a kind. The error type itself is the domain's
// (src/domain/errors.ts), re-exported for the HTTP layer.
import { AppError, type ErrorKind } from '../domain/errors.js';
import { noteDatabaseError } from '../db/outage.js';

export * from '../domain/errors.js';

export const HTTP_STATUS_OF_KIND: Record<ErrorKind, number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invalid_transition: 409,
  // Spec 7.2: "500 internal error or integration service error (retry)".
  integration: 500,
  rate_limited: 429,
  unavailable: 503,
};

export const httpStatusOf = (err: AppError): number => HTTP_STATUS_OF_KIND[err.kind];

/** Seconds a caller waits before retrying while the database is away (a restart takes 1–3 s). */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/**
 * 503 + Retry-After, spec 7.2 "temporary unavailability": the database is restarting or failing
 * over. Nothing of the request may be assumed done; retrying it (same merchant_tx_id or reference)
 * is safe, since a write that did commit is found by its key.
 */
export function databaseUnavailable(): AppError {
  return new AppError(
    'unavailable',
    'service unavailable',
    [{ field: 'database', code: 'service_unavailable', message: `the database is unavailable for a moment; retry after ${DATABASE_RETRY_AFTER_SECONDS} s` }],
    { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
  );
}

/**
 * The AppError an error stands for: itself, or 503 `service_unavailable` when it says the
 * database is away (refused or reset connections, 57P01/57P02/57P03, class 08, a pool timeout;
 * noted on `db`'s outage, which logs it once); undefined for anything else (a 500).
 */
export function appErrorOf(err: unknown, db?: object): AppError | undefined {
  if (err instanceof AppError) return err;
  return noteDatabaseError(db, err) ? databaseUnavailable() : undefined;
}
