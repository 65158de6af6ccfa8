/**
 * The web application's pages, registered on the app. Server-rendered HTML; the only
 * script is the scan tool's.
 */
import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../catalog/load.ts';
import type { Config } from '../config.ts';
import { docsPage } from './docs-page.ts';

export interface WebDeps {
  config: Config;
  catalog: Catalog;
}

export async function webRoutes(app: FastifyInstance, _deps: WebDeps) {
  docsPage(app);
}
