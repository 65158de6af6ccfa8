/**
 * Builds the real application in-process for a test: real config parsing, real
 * catalog, embedded PGlite in memory (or PostgreSQL at a given URL), and a logger whose
 * lines are captured so tests can assert what was (not) logged.
 */
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { type Catalog, loadCatalog } from '../../src/catalog/load.ts';
import { syncCatalog } from '../../src/catalog/sync.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime.ts';
import { type Db, openPglite, openPostgres } from '../../src/storage/db.ts';
import { migrate } from '../../src/storage/migrate.ts';

let cachedCatalog: Promise<Catalog> | undefined;
export const testCatalog = () => {
  cachedCatalog ??= loadCatalog();
  return cachedCatalog;
};

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  config: Config;
  catalog: Catalog;
  runtime: Runtime;
  logs: string[];
  close(): Promise<void>;
}

export type StartOptions = {
  env?: Record<string, string>;
  databaseUrl?: string;
  runtime?: RuntimeOptions;
  /** a catalog of the test's own (e.g. records whose links point at a loopback server) */
  catalog?: Catalog;
  /** adds test routes before the app is ready (e.g. one protected by the agent Bearer middleware) */
  setup?: (app: FastifyInstance, runtime: Runtime) => void;
};

export async function startTestApp(opts: StartOptions = {}): Promise<TestApp> {
  // No weekly sweep unless a test asks for one: a sweep of the real catalog would reach outside.
  const config = loadConfig({ LOG_LEVEL: 'info', LINK_CHECK_SCHEDULE: 'off', ...opts.env });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger(config.logLevel, sink);
  const db = opts.databaseUrl ? await openPostgres(opts.databaseUrl, 4) : await openPglite(undefined);
  await migrate(db);
  const catalog = opts.catalog ?? (await testCatalog());
  await syncCatalog(db, catalog);
  const runtime = await createRuntime({ config, db, catalog, logger }, opts.runtime);
  // tests start from an open queue; the service opens it once it listens (src/linkcheck/deferred.ts)
  await runtime.queue.open();
  const app = await buildApp({ config, db, catalog, logger, runtime });
  opts.setup?.(app, runtime);
  await app.ready();
  return {
    app,
    db,
    config,
    catalog,
    runtime,
    logs,
    async close() {
      await app.close();
      await runtime.close();
      await db.close();
    },
  };
}

/** Listens on a free loopback port and returns the `ws://…/ws` URL of the app's WebSocket. */
export async function listenWs(t: TestApp): Promise<string> {
  return `${(await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws')}/ws`;
}
