/** POST /api/v1/analyzer {slug} → the friction analysis of one service. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Catalog, CatalogEntry } from '../catalog/load.ts';
import { ErrorEnvelope, envelopeOf, ok } from '../http/envelope.ts';
import { notFound } from '../http/errors.ts';
import { methodNotAllowed } from '../http/method-not-allowed.ts';
import { Analysis, AnalyzerRequest, analyze } from './analyzer.ts';

export const analyzerRoutes: FastifyPluginAsyncZod<{ catalog: Catalog }> = async (app, { catalog }) => {
  // An analysis depends on the record alone: built once per service, frozen, so the serializer
  // (http/plumbing.ts) validates and serializes it once too.
  const analyses = new Map<string, Readonly<ReturnType<typeof ok<ReturnType<typeof analyze>>>>>();
  const analysisOf = (entry: CatalogEntry) => {
    let a = analyses.get(entry.record.slug);
    if (!a) {
      a = Object.freeze(ok(analyze(entry)));
      analyses.set(entry.record.slug, a);
    }
    return a;
  };
  app.post(
    '/analyzer',
    {
      schema: {
        tags: ['guidance'],
        summary: 'Six-axis cancellation friction of a service, with reasons',
        description:
          'Computed by the published cf-1.0 rubric from the catalog record (docs/friction.md); never by a model, so it does not depend on the AI provider.',
        body: AnalyzerRequest,
        response: { 200: envelopeOf(Analysis), 400: ErrorEnvelope, 404: ErrorEnvelope, 415: ErrorEnvelope },
      },
    },
    async (req) => {
      const entry = catalog.bySlug.get(req.body.slug.toLowerCase());
      if (!entry) throw notFound(`service ${JSON.stringify(req.body.slug)}`);
      return analysisOf(entry);
    },
  );
  methodNotAllowed(app, '/analyzer', ['POST']);
};
