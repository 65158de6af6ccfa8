/**
 * OpenAPI 3.1 generated from the route schemas (@fastify/swagger + the zod transform);
 * served at /.well-known/openapi.json. There is no hand-written copy.
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { createJsonSchemaTransform } from 'fastify-type-provider-zod';
import type { Config } from '../config.ts';

const API_DESCRIPTION = [
  'Public, read-mostly API of optout: a catalog of paid services with step-by-step cancellation',
  'guides, traps, a six-axis friction score and sources. No key is needed.',
  '',
  'Every response is an envelope `{code, data?, message}`; `code` is `"0"` on success and a stable',
  'error code otherwise (docs/api.md lists them with their HTTP statuses).',
  '',
  'Agent registration (`/agent/auth*`, tag `agent`) follows auth.md agentic registration: its errors are',
  '`{error, message}` and its credentials travel as `Authorization: Bearer` (read `/auth.md` first).',
].join('\n');

export async function registerOpenApi(app: FastifyInstance, config: Config) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'optout public API', version: '1.0.0', description: API_DESCRIPTION },
      servers: [{ url: config.apiUrl }],
      tags: [
        { name: 'catalog', description: 'Services and categories' },
        { name: 'guidance', description: 'Guides, friction analysis and link re-verification' },
        { name: 'agent', description: 'Agent registration, claim, revocation and revocation events (see /auth.md)' },
      ],
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'api_key or access_token from POST /agent/auth or /agent/auth/claim/complete',
          },
        },
      },
    },
    transform: createJsonSchemaTransform({ zodToJsonConfig: { target: 'draft-2020-12' } }),
  });
}

export function openApiRoute(app: FastifyInstance) {
  app.get('/.well-known/openapi.json', { schema: { hide: true } }, async (_req, reply) => {
    reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=300');
    return app.swagger();
  });
}
