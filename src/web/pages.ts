/**
 * The web application's pages, registered on the app. Server-rendered HTML that works
 * before (and without) scripts; the only scripts are the scan tool's and the service
 * page's small enhancement, both served from /assets/.
 */
import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../catalog/load.ts';
import type { ServiceStates } from '../catalog/states.ts';
import type { Config } from '../config.ts';
import { assetRoutes } from './assets.ts';
import { loadBlog } from './blog/content.ts';
import { blogRoutes } from './blog/routes.ts';
import { docsPage } from './docs-page.ts';
import { seoRoutes } from './seo.ts';
import { serviceRoutes } from './services/routes.ts';
import { toolRoutes } from './tool/home-page.ts';
import { trustRoutes } from './trust/routes.ts';

export interface WebDeps {
  config: Config;
  catalog: Catalog;
  /** link-check state of every service, from memory (the catalog API's snapshot) */
  states: ServiceStates;
}

export async function webRoutes(app: FastifyInstance, deps: WebDeps) {
  await assetRoutes(app);
  const blog = await loadBlog();
  docsPage(app);
  toolRoutes(app, deps.config);
  serviceRoutes(app, deps);
  blogRoutes(app, { config: deps.config, blog });
  trustRoutes(app, { config: deps.config, services: deps.catalog.entries.length });
  seoRoutes(app, { config: deps.config, catalog: deps.catalog, blog });
}
