/** The trust pages: /privacy, /security, /about, and /.well-known/security.txt. */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { aboutPage } from './about-page.ts';
import { trustFacts } from './facts.ts';
import { privacyPage } from './privacy-page.ts';
import { securityPage } from './security-page.ts';
import { securityTxtRoute } from './security-txt.ts';

export function trustRoutes(app: FastifyInstance, deps: { config: Config; services: number }) {
  const facts = trustFacts(deps.config);
  const pages: [string, string][] = [
    ['/privacy', privacyPage(facts)],
    ['/security', securityPage(facts)],
    ['/about', aboutPage(facts, deps.services)],
  ];
  for (const [path, body] of pages) {
    app.get(path, { schema: { hide: true } }, (_req, reply) =>
      reply.type('text/html; charset=utf-8').header('cache-control', 'public, max-age=300').send(body),
    );
  }
  securityTxtRoute(app, facts);
}
