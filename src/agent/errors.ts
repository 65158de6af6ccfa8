/**
 * The error catalog of the agent registration protocol (/agent/auth*), one code per failure
 * with its HTTP status. Bodies are `{error, message}` as in the auth.md agentic-registration
 * reference (docs/agents.md), not the public API's envelope: agents that follow auth.md parse
 * `error`. Tests assert codes, never messages.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { z } from 'zod';
import { noteErrorCode } from '../http/access-log.ts';
import { describeValidation } from '../http/error-handler.ts';
import { ApiError } from '../http/errors.ts';

export const AGENT_ERRORS = {
  invalid_request: 400,
  unsupported_credential_type: 400,
  otp_not_generated: 400,
  invalid_claim_token: 401,
  otp_invalid: 401,
  invalid_token: 401,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  claimed_or_in_flight: 409,
  previously_claimed: 409,
  claim_completed: 409,
  claim_expired: 410,
  claim_superseded: 410,
  otp_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  mail_unavailable: 503,
} as const;

export type AgentErrorCode = keyof typeof AGENT_ERRORS;

export const AgentErrorBody = z
  .object({
    error: z.enum(Object.keys(AGENT_ERRORS) as [AgentErrorCode, ...AgentErrorCode[]]).describe('stable error code'),
    message: z.string().describe('what went wrong, for people'),
  })
  .describe('Agent protocol error');

/** An expected failure of the agent protocol; the scope's error handler renders it. */
export class AgentError extends Error {
  readonly code: AgentErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(code: AgentErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AgentError';
    this.code = code;
    this.status = AGENT_ERRORS[code];
    this.headers = headers;
  }
}

/** The public API's codes that shared plumbing (rate limits, 405) raises, in this protocol's words. */
const FROM_API: Record<string, AgentErrorCode> = {
  RATE_LIMITED: 'rate_limited',
  METHOD_NOT_ALLOWED: 'method_not_allowed',
  NOT_FOUND: 'not_found',
  INVALID_REQUEST: 'invalid_request',
};

const BY_STATUS: Partial<Record<number, AgentErrorCode>> = {
  400: 'invalid_request',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/** Error and not-found handling of the agent scope: every failure is `{error, message}` JSON. */
export function installAgentErrors(scope: FastifyInstance) {
  scope.setErrorHandler((err: FastifyError & { validationContext?: string }, req, reply) => {
    let e: AgentError;
    if (err instanceof AgentError) e = err;
    else if (err instanceof ApiError) e = new AgentError(FROM_API[err.code] ?? 'internal', err.message, err.headers);
    else if (err.validation) e = new AgentError('invalid_request', describeValidation(err));
    else {
      const code = BY_STATUS[err.statusCode ?? 500];
      if (!code) req.log.error({ err }, 'unhandled error');
      e = code
        ? new AgentError(code, code === 'unsupported_media_type' ? 'send application/json' : err.message)
        : new AgentError('internal', 'internal error; the request was not completed');
    }
    noteErrorCode(reply, e.code);
    return reply
      .code(e.status)
      .headers(e.headers)
      .header('cache-control', 'no-store')
      .type('application/json; charset=utf-8')
      .send({ error: e.code, message: e.message });
  });
  scope.setNotFoundHandler((req, reply) =>
    reply
      .code(404)
      .type('application/json; charset=utf-8')
      .send({ error: 'not_found', message: `no route for ${req.method} ${req.url.split('?')[0]}` }),
  );
}

/** An expected outcome of the agent logic: a value, or a code and a sentence. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: AgentErrorCode; message: string };
export const done = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const failed = (
  error: AgentErrorCode,
  message: string,
): { ok: false; error: AgentErrorCode; message: string } => ({
  ok: false,
  error,
  message,
});
/** The route's side: a failure becomes the error the scope's handler renders. */
export function unwrap<T>(o: Outcome<T>, headers?: Record<string, string>): T {
  if (o.ok) return o.value;
  throw new AgentError(o.error, o.message, headers);
}
