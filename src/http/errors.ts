// Error kinds on the wire: the one kind → HTTP status table. The error type itself is the
// domain's (src/domain/errors.ts), re-exported for the HTTP layer.
import type { AppError, ErrorKind } from '../domain/errors.js';

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
