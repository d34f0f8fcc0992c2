// The one error type of the service. Everything a handler throws ends up as an AppError
// and is written as the envelope {success:false, message, data?} by the error handler.

export interface FieldError {
  field: string;
  code: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly data?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, data?: unknown) => new AppError(400, message, data);
export const notFound = () => new AppError(404, 'not found error');
export const conflictDuplicate = (field = 'merchant_tx_id') =>
  new AppError(409, 'already exist error', [{ field, code: 'exist', message: 'merchant_tx_id already exists' }]);
export const invalidTransition = (from: string, action: string) =>
  new AppError(409, 'invalid transition', [{ field: 'status', code: 'invalid_transition', message: `cannot ${action} from status ${from}` }]);

/** 400 validation error carrying field errors; the domain code goes first so clients read it. */
export function validationError(errors: FieldError[]): AppError {
  return new AppError(400, 'validation error', errors);
}

export function domainError(field: string, code: string, message: string): AppError {
  return validationError([{ field, code, message }]);
}

/** Postgres unique violation (optionally on a named constraint). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && (!constraint || e.constraint === constraint);
}
