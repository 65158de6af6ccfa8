/** POST /api/v1/guide {slug, options?:{tone?, locale?}} → a cancellation guide. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Catalog } from '../../catalog/load.ts';
import { ErrorEnvelope, envelopeOf, ok } from '../../http/envelope.ts';
import { ApiError, notFound } from '../../http/errors.ts';
import { methodNotAllowed } from '../../http/method-not-allowed.ts';
import { type RateLimit, rateLimited } from '../../http/rate-limit.ts';
import { Guide, GuideRequest } from './schema.ts';
import type { GuideService } from './service.ts';

export interface GuideRouteOptions {
  catalog: Catalog;
  guides: GuideService;
  limit: RateLimit;
}

export const guideRoutes: FastifyPluginAsyncZod<GuideRouteOptions> = async (app, { catalog, guides, limit }) => {
  app.post(
    '/guide',
    {
      preHandler: rateLimited(limit),
      schema: {
        tags: ['guidance'],
        summary: 'Step-by-step cancellation guide in a chosen tone and locale',
        description:
          'Tones: neutral (default), reassuring, terse. `locale` is a BCP 47 tag; the framing text is written in en, de, fr ' +
          'or es (others fall back by language, then to English) and `locale` in the response says which was served; steps ' +
          'stay in the catalog language (`steps_locale`) unless a model writes the guide. 20 requests per minute per client IP.',
        body: GuideRequest,
        response: {
          200: envelopeOf(Guide),
          400: ErrorEnvelope,
          404: ErrorEnvelope,
          415: ErrorEnvelope,
          429: ErrorEnvelope,
          503: ErrorEnvelope,
        },
      },
    },
    async (req) => {
      const entry = catalog.bySlug.get(req.body.slug.toLowerCase());
      if (!entry) throw notFound(`service ${JSON.stringify(req.body.slug)}`);
      const r = await guides.guide(entry, req.body.options ?? {});
      if (!r.ok) {
        throw new ApiError('LLM_UNAVAILABLE', 'the guide writer is momentarily unavailable; retry later', {
          'retry-after': String(r.retryAfterSeconds),
        });
      }
      return ok(r.guide);
    },
  );
  methodNotAllowed(app, '/guide', ['POST']);
};
