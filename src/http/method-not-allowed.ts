/**
 * Answers 405 METHOD_NOT_ALLOWED (with Allow) for a known path asked with a method it
 * does not serve, instead of the misleading 404 a router gives.
 */
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { ApiError } from './errors.ts';

const ALL: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export function methodNotAllowed(app: FastifyInstance, url: string, allowed: HTTPMethods[]) {
  const others = ALL.filter((m) => !allowed.includes(m) && !(m === 'HEAD' && allowed.includes('GET')));
  const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  app.route({
    method: others,
    url,
    schema: { hide: true },
    handler: async (req) => {
      throw new ApiError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use ${allowed.join(' or ')}`, {
        allow,
      });
    },
  });
}
