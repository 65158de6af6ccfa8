/**
 * Starts optout: config → logger → catalog and storage (migrated), side by side → app → listen.
 * SIGTERM/SIGINT drain first (docs/deploy.md, "Shutting down"): /readyz turns 503 and new /ws
 * connections are refused at once; running scans and unsubscribe batches get DRAIN_SECONDS to
 * finish and report; each /ws client is told SERVICE_RESTARTING and closed with 1012. Then stop
 * accepting, let in-flight requests finish, and close the database (PGlite must be closed
 * cleanly or its directory can corrupt).
 */
import module from 'node:module';

// Node's on-disk compile cache (NODE_COMPILE_CACHE, else os.tmpdir()/node-compile-cache): a
// start after the first skips stripping and compiling the code again, which was about half of the
// time from start to ready. main.js, the entry, has turned it on already; this covers `node
// src/main.ts`. It only covers modules loaded after this line, hence the dynamic imports.
module.enableCompileCache?.();
const [
  { buildApp },
  { loadCatalog },
  { syncCatalog },
  { loadConfig },
  { createLogger },
  { createRuntime },
  { openStorage },
  { STOP_GRACE_MS },
  { settleMemory },
  { keepTickShape },
] = await Promise.all([
  import('./app.ts'),
  import('./catalog/load.ts'),
  import('./catalog/sync.ts'),
  import('./config.ts'),
  import('./log.ts'),
  import('./runtime.ts'),
  import('./storage/index.ts'),
  import('./channel/drain.ts'),
  import('./memory/settle.ts'),
  import('./memory/tick-shape.ts'),
]);

/**
 * After the server listens: this long for the first requests to be answered unhindered, then the
 * start's leftover memory is given back (memory/settle.ts), then the link-check queue opens
 * (linkcheck/deferred.ts). In that order the queue's own memory comes on top of a settled heap
 * rather than on the start's peak.
 */
const AFTER_START_MS = 500;

/** after the drain: closing the app, the runtime and the database */
const CLOSE_GRACE_MS = 10_000;

async function main() {
  // before any full collection can free nextTick's fast path (memory/tick-shape.ts)
  keepTickShape();
  // Start-up phases, in ms, reported on the "listening" line: where a slow start goes.
  // `modules` is the time from process start until main() runs (loading and compiling code).
  const startup: Record<string, number> = {};
  let mark = performance.now();
  startup.modules = Math.round(mark);
  const phase = (name: string) => {
    const now = performance.now();
    startup[name] = Math.round(now - mark);
    mark = now;
  };
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`optout: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const logger = createLogger(config.logLevel);
  // Reading the catalog is CPU in this thread; opening PGlite is mostly not: overlap them.
  const [read, opened] = await Promise.allSettled([
    // the validated catalog is kept beside the compile cache between starts (catalog/snapshot.ts)
    loadCatalog(undefined, { snapshotDir: module.getCompileCacheDir?.() }),
    openStorage(config),
  ]);
  if (read.status === 'rejected') {
    if (opened.status === 'fulfilled') await opened.value.close();
    throw read.reason;
  }
  if (opened.status === 'rejected') throw opened.reason;
  const catalog = read.value;
  const db = opened.value;
  phase('catalog_and_storage');
  await syncCatalog(db, catalog);
  phase('sync');
  const runtime = await createRuntime({ config, db, catalog, logger });
  phase('runtime');
  const app = await buildApp({ config, db, catalog, logger, runtime });
  phase('app');

  let afterStart: NodeJS.Timeout | undefined;
  // A queue that cannot open (the database is down) is tried again, 1 s later, then 2, 4 … 30 s;
  // the rest of the service goes on answering, and /readyz says what the database is doing.
  const openQueue = (attempt: number) => {
    runtime.queue.open().then(
      () => logger.info({ ms_since_start: Math.round(performance.now()), attempt }, 'link-check queue open'),
      (err: unknown) => {
        if (stopping) return;
        const retryMs = Math.min(30_000, 1000 * 2 ** attempt);
        logger.error({ err, retry_in_ms: retryMs }, 'the link-check queue could not be opened');
        afterStart = setTimeout(() => openQueue(attempt + 1), retryMs);
      },
    );
  };
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, drain_ms: config.drainMs }, 'shutting down');
    const timer = setTimeout(
      () => {
        logger.error('shutdown took too long; exiting');
        process.exit(1);
      },
      config.drainMs + STOP_GRACE_MS + CLOSE_GRACE_MS,
    );
    timer.unref();
    try {
      clearTimeout(afterStart);
      runtime.readiness.drain();
      const drained = await runtime.live.drain(config.drainMs);
      logger.info(drained, 'drained');
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
  phase('listen');
  startup.total = Math.round(performance.now());
  logger.info(
    { address, url: config.baseUrl, storage: db.kind, services: catalog.entries.length, startup_ms: startup },
    'optout is listening',
  );
  afterStart = setTimeout(() => {
    const settled = settleMemory();
    if (settled) logger.info(settled, 'memory settled after start');
    openQueue(0);
  }, AFTER_START_MS);
}

main().catch((err) => {
  process.stderr.write(`optout failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
