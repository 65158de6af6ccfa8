/**
 * /.well-known/security.txt (RFC 9116): where to report a vulnerability. Contact (§2.5.3) and
 * Expires (§2.5.5) are required; Expires should be less than a year ahead, so it is computed
 * from the day of the request, 180 days on. Canonical (§2.5.2) names this file's own URL and
 * Policy (§2.5.7) the /security page; Preferred-Languages (§2.5.8) says the pages' language.
 */
import type { FastifyInstance } from 'fastify';
import type { TrustFacts } from './facts.ts';

export const EXPIRES_DAYS = 180;

export function securityTxt(f: TrustFacts, now = new Date()): string {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const expires = new Date(day + EXPIRES_DAYS * 86_400_000).toISOString().replace('.000Z', 'Z');
  return [
    `Contact: ${f.contact}`,
    `Expires: ${expires}`,
    `Canonical: ${f.baseUrl}/.well-known/security.txt`,
    `Policy: ${f.baseUrl}/security`,
    'Preferred-Languages: en',
    '',
  ].join('\n');
}

export function securityTxtRoute(app: FastifyInstance, f: TrustFacts) {
  app.get('/.well-known/security.txt', { schema: { hide: true } }, (_req, reply) =>
    // RFC 9116 §3: served as text/plain with a charset.
    reply.type('text/plain; charset=utf-8').header('cache-control', 'public, max-age=3600').send(securityTxt(f)),
  );
}
