/**
 * The browser sign-in with Microsoft (OAuth 2.0 authorization code with PKCE, OpenID Connect):
 *
 *   GET  /auth/microsoft/start     → 302 to the provider (code, S256 challenge, state, nonce)
 *   GET  /auth/microsoft/callback  → code exchanged, tokens kept in memory, session cookie, 303 to /
 *   POST /auth/microsoft/signout   → tokens forgotten, cookie cleared, 303 to the provider's end-session
 *   GET  /auth/microsoft/session   → {configured, signed_in, email?} for the page
 *
 * Every failure comes back to the page as `/?oauth_error=CODE` (errors.ts), never as a provider's
 * error page or raw answer. Responses that set or clear a cookie are never cached.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { createAccount } from './account.ts';
import { openidClient } from './client.ts';
import type { OAuthErrorCode } from './errors.ts';
import type { OAuthService } from './service.ts';
import { flowCookie, readCookie, sessionCookie } from './sessions.ts';

export interface OAuthRouteOptions {
  config: Config;
  oauth: OAuthService;
}

export async function oauthRoutes(app: FastifyInstance, { config, oauth }: OAuthRouteOptions) {
  const { cookies, sessions, sealer, client } = oauth;
  const home = `${config.baseUrl}/`;
  const allowedOrigins = new Set([new URL(config.baseUrl).origin, ...config.allowedOrigins]);
  // The sign-out button is a plain form; its (empty) body is not read.
  app.addContentTypeParser('application/x-www-form-urlencoded', { bodyLimit: 1024 }, (_req, _body, done) =>
    done(null, {}),
  );

  const back = (reply: FastifyReply, code: OAuthErrorCode) =>
    reply.header('cache-control', 'no-store').redirect(`/?oauth_error=${code}`, 303);

  app.get('/auth/microsoft/start', { schema: { hide: true } }, async (req, reply) => {
    if (!client) return back(reply, 'OAUTH_NOT_CONFIGURED');
    const oidc = await openidClient();
    const checks = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
    };
    const auth = await client.authorizationUrl(checks);
    if (!auth.ok) return back(reply, auth.code);
    req.log.info('microsoft sign-in started');
    return reply
      .header('cache-control', 'no-store')
      .header('set-cookie', flowCookie(cookies, await sealer.seal(checks)))
      .redirect(auth.url.href, 302);
  });

  app.get('/auth/microsoft/callback', { schema: { hide: true } }, async (req, reply) => {
    // The sealed checks are single-use: cleared whatever happens next.
    reply.header('set-cookie', flowCookie(cookies, null));
    if (!client) return back(reply, 'OAUTH_NOT_CONFIGURED');
    const checks = await sealer.open(readCookie(req.headers.cookie, cookies.flow) ?? '');
    if (!checks) {
      // A refusal still says so, even when the sign-in cookie is gone (RFC 6749 §4.1.2.1).
      const refused = (req.query as Record<string, unknown>).error === 'access_denied';
      return back(reply, refused ? 'OAUTH_CONSENT_REFUSED' : 'OAUTH_SIGN_IN_FAILED');
    }
    // The URL the provider redirected to, as registered (a proxy may have rewritten host/scheme).
    const current = new URL(oauth.settings.redirectUri);
    current.search = new URL(req.url, 'http://x').search;
    const exchanged = await client.exchangeCode(current, checks);
    if (!exchanged.ok) return back(reply, exchanged.code);
    const made = createAccount(client, exchanged.tokens);
    if (!made.ok) return back(reply, made.code);
    // A new sign-in replaces the one this browser had.
    await sessions.end(readCookie(req.headers.cookie, cookies.session));
    const id = sessions.create(made.account);
    req.log.info('microsoft sign-in completed');
    return reply
      .header('cache-control', 'no-store')
      .header('set-cookie', [flowCookie(cookies, null), sessionCookie(cookies, id)])
      .redirect('/', 303);
  });

  app.post('/auth/microsoft/signout', { schema: { hide: true } }, async (req: FastifyRequest, reply) => {
    // SameSite=Lax already keeps the cookie off a cross-site POST; a foreign Origin is refused outright.
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== 'null' && !allowedOrigins.has(origin)) {
      return reply.code(403).send({ code: 'FORBIDDEN', message: 'origin not allowed' });
    }
    const id = readCookie(req.headers.cookie, cookies.session);
    const idToken = sessions.get(id)?.idToken;
    const ended = await sessions.end(id);
    reply.header('cache-control', 'no-store').header('set-cookie', sessionCookie(cookies, null));
    if (ended) req.log.info('microsoft sign-out');
    // RP-initiated logout: the provider ends its own session too, then sends the person home.
    const endSession = ended && client ? await client.endSessionUrl(idToken, home) : null;
    return reply.redirect(endSession ?? '/', 303);
  });

  app.get('/auth/microsoft/session', { schema: { hide: true } }, async (req, reply) => {
    const account = sessions.get(readCookie(req.headers.cookie, cookies.session));
    reply.header('cache-control', 'no-store');
    return account
      ? { configured: !!client, signed_in: true, email: account.email }
      : { configured: !!client, signed_in: false };
  });
}
