/**
 * A link-check node as its own process, for crash tests: opens the storage named by
 * DATABASE_URL, loads a loopback catalog with one service (SLUG → TARGET_URL), runs the
 * worker, and with ENQUEUE=1 queues a check of that service. Logs JSON lines on stdout.
 * On SIGTERM it prints the number of recorded checks and exits.
 */
import { syncCatalog } from '../../src/catalog/sync.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { createRuntime } from '../../src/runtime.ts';
import { openStorage } from '../../src/storage/index.ts';
import { loopbackCatalog } from './catalog.ts';

const slug = process.env.SLUG ?? 'crashy';
const config = loadConfig({
  DATABASE_URL: process.env.DATABASE_URL ?? '',
  DATA_DIR: process.env.DATA_DIR ?? '',
  OUTBOUND_ALLOW_HOSTS: process.env.OUTBOUND_ALLOW_HOSTS ?? '',
  LINK_CHECK_SCHEDULE: 'off',
});
const logger = createLogger('info');
const db = await openStorage(config);
const catalog = loopbackCatalog([{ slug, url: process.env.TARGET_URL ?? '' }]);
await syncCatalog(db, catalog);
const runtime = await createRuntime(
  { config, db, catalog, logger },
  { queueTiming: { pollingIntervalSeconds: 0.5, heartbeatSeconds: 10, superviseIntervalSeconds: 1 } },
);
await runtime.queue.open();
if (process.env.ENQUEUE === '1') {
  const r = await runtime.queue.enqueue(slug);
  logger.info({ jobId: r.jobId }, 'enqueued');
}
logger.info('node ready');
process.on('SIGTERM', async () => {
  await runtime.close();
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from link_checks where slug = $1', [slug]);
  logger.info({ recorded: rows[0]?.n }, 'node stopped');
  await db.close();
  process.exit(0);
});
