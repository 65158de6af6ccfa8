/**
 * Starts optout: config → logger → storage (migrated) → catalog → app → listen.
 * SIGTERM/SIGINT: stop accepting, let in-flight requests finish, then close the
 * database (PGlite must be closed cleanly or its directory can corrupt).
 */
import { buildApp } from './app.ts';
import { loadCatalog } from './catalog/load.ts';
import { syncCatalog } from './catalog/sync.ts';
import { loadConfig } from './config.ts';
import { createLogger } from './log.ts';
import { createRuntime } from './runtime.ts';
import { openStorage } from './storage/index.ts';

const SHUTDOWN_GRACE_MS = 10_000;

async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`optout: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const logger = createLogger(config.logLevel);
  const catalog = await loadCatalog();
  const db = await openStorage(config);
  await syncCatalog(db, catalog);
  const runtime = await createRuntime({ config, db, catalog, logger });
  const app = await buildApp({ config, db, catalog, logger, runtime });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    timer.unref();
    try {
      await app.close();
      await runtime.close();
      await db.close();
      logger.info('stopped');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'error while shutting down');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  const address = await app.listen({ port: config.port, host: config.host });
  logger.info(
    { address, url: config.baseUrl, storage: db.kind, services: catalog.entries.length },
    'optout is listening',
  );
}

main().catch((err) => {
  process.stderr.write(`optout failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
