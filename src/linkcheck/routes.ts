/** POST /api/v1/link-check {slug} → 202 {queued: true}: queue a re-verification. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Catalog } from '../catalog/load.ts';
import { ErrorEnvelope } from '../http/envelope.ts';
import { notFound } from '../http/errors.ts';
import { methodNotAllowed } from '../http/method-not-allowed.ts';
import { type RateLimit, rateLimited } from '../http/rate-limit.ts';
import type { JobQueue } from './queue.ts';

const LinkCheckRequest = z.strictObject({ slug: z.string().min(1).max(100).describe('service slug') });
const Queued = z.object({
  code: z.literal('0'),
  data: z.object({ queued: z.literal(true) }),
  message: z.literal('').describe('always empty on this response'),
});

export interface LinkCheckRouteOptions {
  catalog: Catalog;
  queue: Pick<JobQueue, 'enqueue'>;
  limit: RateLimit;
}

export const linkCheckRoutes: FastifyPluginAsyncZod<LinkCheckRouteOptions> = async (app, { catalog, queue, limit }) => {
  app.post(
    '/link-check',
    {
      preHandler: rateLimited(limit),
      schema: {
        tags: ['guidance'],
        summary: 'Queue a re-verification of the service’s cancel link',
        description:
          'Asynchronous: the result appears on GET /api/v1/services/{slug} as `link_status` and `last_verified`. ' +
          'A request while a check of that service is pending joins it. 30 requests per minute per client IP by default (LINK_CHECKS_PER_IP).',
        body: LinkCheckRequest,
        response: {
          202: Queued,
          400: ErrorEnvelope,
          404: ErrorEnvelope,
          415: ErrorEnvelope,
          429: ErrorEnvelope,
        },
      },
    },
    async (req, reply) => {
      const entry = catalog.bySlug.get(req.body.slug.toLowerCase());
      if (!entry) throw notFound(`service ${JSON.stringify(req.body.slug)}`);
      const { joined, jobId } = await queue.enqueue(entry.record.slug);
      req.log.info({ slug: entry.record.slug, joined, jobId }, 'link check requested');
      return reply.code(202).send({ code: '0', data: { queued: true }, message: '' });
    },
  );
  methodNotAllowed(app, '/link-check', ['POST']);
};
