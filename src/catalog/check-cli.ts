/**
 * `npm run catalog:check [--concurrency N] [slug…]`: validates the catalog files, then checks
 * every link now and records the results (check-command.ts). `npm run catalog:validate` only
 * validates.
 */
import { loadConfig } from '../config.ts';
import { createOutboundGuard } from '../outbound/guard.ts';
import { runCheckCommand } from './check-command.ts';
import { CatalogInvalidError, loadCatalog } from './load.ts';
import { formatIssue } from './validate.ts';

const io = { out: (l: string) => process.stdout.write(`${l}\n`), err: (l: string) => process.stderr.write(`${l}\n`) };

async function main(): Promise<number> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    io.err(`catalog:check: CONFIG: ${(err as Error).message}`);
    return 2;
  }
  let catalog: Awaited<ReturnType<typeof loadCatalog>>;
  try {
    catalog = await loadCatalog();
  } catch (err) {
    if (!(err instanceof CatalogInvalidError)) throw err;
    for (const issue of err.issues) io.out(formatIssue(issue));
    io.err(`catalog:check: CATALOG_INVALID: ${err.issues.length} problem(s); no link was checked`);
    return 1;
  }
  const guard = createOutboundGuard({ allowHosts: config.outboundAllowHosts });
  try {
    return await runCheckCommand(process.argv.slice(2), { config, catalog, guard, io });
  } finally {
    await guard.close();
  }
}

process.exitCode = await main();
