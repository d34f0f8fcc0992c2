// The one error type of the service. The domain says what KIND of failure it is; src/http/errors.ts
// alone maps a kind to an HTTP status. Every error leaves as the envelope {success:false, message, data?}.

/** What went wrong, as the caller must understand it (HTTP status: src/http/errors.ts). */
export type ErrorKind =
  | 'validation' // the request breaks a rule (field errors in data, domain code first)
  | 'unauthenticated' // no or a wrong credential
  | 'forbidden' // a credential that may not do this
  | 'not_found' // no such record (or another merchant's)
  | 'conflict' // duplicate merchant_tx_id: the client adopts the existing record
  | 'invalid_transition' // the record's status does not allow the action
  | 'integration' // the trading platform failed or did not answer (retry)
  | 'rate_limited' // over a rate limit (Retry-After, RateLimit-* headers: src/http/rate-limit.ts)
  | 'unavailable'; // temporarily unable to answer (Retry-After)

export interface FieldError {
  field: string;
  code: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly data?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const isAppError = (err: unknown, kind?: ErrorKind): err is AppError => err instanceof AppError && (kind === undefined || err.kind === kind);

export const badRequest = (message: string, data?: unknown) => new AppError('validation', message, data);
export const forbidden = (message: string) => new AppError('forbidden', message);
export const notFound = () => new AppError('not_found', 'not found error');
export const conflictDuplicate = (field = 'merchant_tx_id') =>
  new AppError('conflict', 'already exist error', [{ field, code: 'exist', message: 'merchant_tx_id already exists' }]);
export const invalidTransition = (from: string, action: string) =>
  new AppError('invalid_transition', 'invalid transition', [{ field: 'status', code: 'invalid_transition', message: `cannot ${action} from status ${from}` }]);

/** 400 validation error carrying field errors; the domain code goes first so clients read it. */
export function validationError(errors: FieldError[]): AppError {
  return new AppError('validation', 'validation error', errors);
}

export function domainError(field: string, code: string, message: string): AppError {
  return validationError([{ field, code, message }]);
}
