/**
 * The one error catalog of the public API (docs/api.md, "Error codes"): every code with its
 * HTTP status, defined once. Responses carry the code; tests assert codes, never messages.
 */
export const ERRORS = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  LLM_UNAVAILABLE: 503,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERRORS;

/**
 * An expected failure a handler reports by throwing; the error handler turns it into the
 * envelope. `headers` carries e.g. Retry-After.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERRORS[code];
    this.headers = headers;
  }
}

export const notFound = (what: string) => new ApiError('NOT_FOUND', `${what} not found`);
