/**
 * GET /connect?token=… shows a scan hand-off's page (page.ts); POST /connect takes the
 * password and starts the scan; POST /connect/forget wipes the hand-off now. The token in the
 * URL is the hand-off's connect token (256 random bits; request logs blank `token` values,
 * src/log.ts). A POST answers 303 to the page (so a reload sends nothing twice), after waiting
 * a few seconds for the mail server's verdict so the page can say whether the password worked.
 * Pages are never cached or indexed.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Handoff, HandoffStore } from '../../handoff/store.ts';
import { OAUTH_PROVIDER } from '../../mailbox/providers.ts';
import { connectPage, goneConnectPage, wipedPage } from './page.ts';

const Token = z.string().min(1).max(200);
const PasswordForm = z.object({ token: Token, password: z.string().min(1).max(1024), username: z.string().optional() });
const TokenForm = z.object({ token: Token });

export async function connectRoutes(app: FastifyInstance, { handoffs }: { handoffs: HandoffStore }) {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 4096 },
    (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  const send = (reply: FastifyReply, status: number, body: string) =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-robots-tag', 'noindex, nofollow')
      .send(body);
  // A Microsoft hand-off signs in with a device code, never on this page.
  const find = (token: string): Handoff | null => {
    const h = handoffs.byConnectToken(token);
    return h && h.request.provider !== OAUTH_PROVIDER.id ? h : null;
  };
  const triesLeft = (signIns: number) => Math.max(0, handoffs.settings.maxSignIns - signIns);

  app.get('/connect', { schema: { hide: true } }, async (req, reply) => {
    const token = Token.safeParse((req.query as { token?: unknown }).token);
    const h = token.success ? find(token.data) : null;
    if (!h) return send(reply, 404, goneConnectPage());
    return send(reply, 200, connectPage(h, triesLeft(h.signIns)));
  });

  app.post('/connect', { schema: { hide: true } }, async (req, reply) => {
    const form = PasswordForm.safeParse(req.body);
    const h = form.success ? find(form.data.token) : null;
    if (!h) return send(reply, form.success ? 404 : 400, goneConnectPage());
    const canSignIn =
      (h.status === 'awaiting_user' || h.status === 'failed') && h.signIns < handoffs.settings.maxSignIns;
    if (canSignIn) await handoffs.signInWithPassword(h, form.data!.password, { ip: req.ip });
    return reply
      .header('cache-control', 'no-store')
      .redirect(`/connect?token=${encodeURIComponent(h.connectToken)}`, 303);
  });

  app.post('/connect/forget', { schema: { hide: true } }, async (req, reply) => {
    const form = TokenForm.safeParse(req.body);
    const h = form.success ? handoffs.byConnectToken(form.data.token) : null;
    if (h) handoffs.forget(h);
    return send(reply, 200, wipedPage());
  });
}
