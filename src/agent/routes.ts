/**
 * /agent/auth*: registration, claim, revocation and the revocation event stream (JSON), and the
 * claim link's pages (HTML). Errors are the agent protocol's `{error, message}` (errors.ts);
 * every response is `Cache-Control: no-store`, since most carry a secret (RFC 6749 §5.1).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { methodNotAllowed } from '../http/method-not-allowed.ts';
import { rateLimited } from '../http/rate-limit.ts';
import { createBearerAuth } from './bearer.ts';
import { inspectLink, mintOtp, startClaim } from './claim.ts';
import { completeClaim } from './complete.ts';
import type { AgentContext } from './context.ts';
import { AGENT_ERRORS, AgentError, AgentErrorBody, type AgentErrorCode, installAgentErrors, unwrap } from './errors.ts';
import { createEventStreams } from './events.ts';
import { claimLinkPage, otpPage, problemPage } from './pages.ts';
import { register } from './register.ts';
import { revoke } from './revoke.ts';
import {
  ClaimPageForm,
  ClaimRequest,
  ClaimResponse,
  CompleteRequest,
  CompleteResponse,
  RegisterRequest,
  RegisterResponse,
  RevokeRequest,
  RevokeResponse,
} from './schemas.ts';

/** Agent requests are a few hundred bytes. */
const BODY_LIMIT = 4096;
const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, AgentErrorBody]));

export const agentRoutes: FastifyPluginAsyncZod<{ ctx: AgentContext }> = async (app, { ctx }) => {
  installAgentErrors(app);
  app.addHook('onRequest', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
  });
  const servers = [{ url: ctx.baseUrl }];
  const auth = createBearerAuth(ctx);
  const streams = createEventStreams(ctx, auth);
  app.addHook('preClose', async () => streams.closeAll());

  app.post(
    '/',
    {
      bodyLimit: BODY_LIMIT,
      preHandler: rateLimited(ctx.limits.register),
      schema: {
        tags: ['agent'],
        servers,
        summary: 'Register an agent',
        description:
          'Anonymous: an api_key with the pre-claim scopes at once. Verified email: the claim email is sent now and the ' +
          'credential is issued by claim completion. See auth.md.',
        body: RegisterRequest,
        response: { 200: RegisterResponse, ...errors(400, 413, 415, 429, 503) },
      },
    },
    async (req) => unwrap(await register(ctx, req.body)),
  );

  app.post(
    '/claim',
    {
      bodyLimit: BODY_LIMIT,
      preHandler: rateLimited(ctx.limits.claim),
      schema: {
        tags: ['agent'],
        servers,
        summary: 'Start the claim: email a one-time link to the person',
        description: 'Idempotent while the link is valid: the same email gets the same answer and no second email.',
        body: ClaimRequest,
        response: { 200: ClaimResponse, ...errors(400, 401, 409, 410, 413, 415, 429, 503) },
      },
    },
    async (req) => unwrap(await startClaim(ctx, req.body.claim_token, req.body.email)),
  );

  app.post(
    '/claim/complete',
    {
      bodyLimit: BODY_LIMIT,
      preHandler: rateLimited(ctx.limits.complete),
      schema: {
        tags: ['agent'],
        servers,
        summary: 'Complete the claim with the 6-digit code',
        description:
          'The code is valid for 10 minutes; after 5 wrong tries it is dead and the person can make another.',
        body: CompleteRequest,
        response: { 200: CompleteResponse, ...errors(400, 401, 409, 410, 413, 415, 429) },
      },
    },
    async (req) => unwrap(await completeClaim(ctx, req.body.claim_token, req.body.otp)),
  );

  app.get(
    '/events',
    {
      exposeHeadRoute: false,
      preHandler: [rateLimited(ctx.limits.events), auth.requireScope()],
      schema: {
        tags: ['agent'],
        servers,
        security: [{ bearer: [] }],
        summary: 'Revocation events (server-sent events)',
        description:
          'text/event-stream. One `credential.revoked` event, whose data is an RFC 8417 SET claim set, when the ' +
          'credential is revoked or ends; then the stream closes.',
        response: { 401: AgentErrorBody, 429: AgentErrorBody },
      },
    },
    (req, reply) => streams.handle(req, reply),
  );

  // Bodies in the RFC 7009 form are parsed only for revocation and the claim page's button.
  await app.register(async (forms: FastifyInstance) => {
    forms.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: BODY_LIMIT },
      (_req, body, done) => {
        const params = new URLSearchParams(body as string);
        const out: Record<string, string> = {};
        for (const [k, v] of params) {
          // RFC 6749 §3.2: request parameters MUST NOT be included more than once.
          if (k in out) return done(new AgentError('invalid_request', `parameter ${k} is repeated`), undefined);
          out[k] = v;
        }
        done(null, out);
      },
    );
    await forms.register(formRoutes, { ctx, servers });
  });

  for (const [url, methods] of [
    ['/', ['POST']],
    ['/claim', ['POST']],
    ['/claim/complete', ['POST']],
    ['/revoke', ['POST']],
    ['/events', ['GET']],
    ['/claim/view', ['GET', 'POST']],
  ] as const) {
    methodNotAllowed(app, url, [...methods]);
  }
};

const pageStatus = (code: AgentErrorCode) => AGENT_ERRORS[code];

const formRoutes: FastifyPluginAsyncZod<{ ctx: AgentContext; servers: { url: string }[] }> = async (
  app,
  { ctx, servers },
) => {
  app.post(
    '/revoke',
    {
      bodyLimit: BODY_LIMIT,
      preHandler: rateLimited(ctx.limits.revoke),
      schema: {
        tags: ['agent'],
        servers,
        summary: 'Revoke a credential or a registration',
        description:
          'JSON {api_key} | {access_token} | {claim_token}, or the RFC 7009 form token=…. Any of a registration’s ' +
          'secrets ends the whole registration. Always 200, also for unknown tokens (RFC 7009 §2.2).',
        consumes: ['application/json', 'application/x-www-form-urlencoded'],
        body: RevokeRequest,
        response: { 200: RevokeResponse, ...errors(400, 413, 415, 429) },
      },
    },
    async (req) => {
      const b = req.body;
      await revoke(
        ctx,
        'token' in b ? b.token : 'api_key' in b ? b.api_key : 'access_token' in b ? b.access_token : b.claim_token,
      );
      return { status: 'revoked' as const };
    },
  );

  const html = (reply: FastifyReply, status: number, body: string) =>
    reply.code(status).type('text/html; charset=utf-8').header('x-robots-tag', 'noindex, nofollow').send(body);

  // The emailed link: a page with one button. Fetching it changes nothing.
  app.get('/claim/view', { schema: { hide: true } }, async (req, reply) => {
    const token = (req.query as { token?: unknown }).token;
    if (typeof token !== 'string' || token.length === 0 || token.length > 200) {
      return html(reply, 400, problemPage('invalid_request'));
    }
    const link = await inspectLink(ctx, token);
    if (!link.ok) return html(reply, pageStatus(link.error), problemPage(link.error));
    return html(reply, 200, claimLinkPage(token));
  });

  // The button: mints the code (and replaces any earlier one).
  app.post('/claim/view', { schema: { hide: true }, bodyLimit: BODY_LIMIT }, async (req, reply) => {
    const form = ClaimPageForm.safeParse(req.body);
    if (!form.success) return html(reply, 400, problemPage('invalid_request'));
    const limited = await ctx.limits.claimPage.consume(req.ip);
    if (!limited.allowed) {
      reply.header('retry-after', String(limited.resetSeconds));
      return html(reply, 429, problemPage('rate_limited'));
    }
    const minted = await mintOtp(ctx, form.data.token);
    if (!minted.ok) return html(reply, pageStatus(minted.error), problemPage(minted.error));
    return html(reply, 200, otpPage(form.data.token, minted.value.otp, minted.value.expires_at));
  });
};
