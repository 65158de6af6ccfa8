/**
 * `npm run catalog:check [--concurrency N] [slug…]`: re-verifies every link of the catalog (or
 * of the services named) now, records each result in the configured database exactly as the
 * weekly job does, and prints one line per link and a summary. Validation of the files comes
 * first (the caller loads the catalog through the validating loader).
 *
 * Exit codes: 0 when every link was checked (whatever the outcomes: a broken link is a finding,
 * not a failure of the command), 1 when catalog data is invalid, 2 for a usage or storage
 * problem. Problems are printed as `catalog:check: CODE: explanation`.
 */
import type { Config } from '../config.ts';
import { checkEntries } from '../linkcheck/run-all.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import { openStorage } from '../storage/index.ts';
import { DataDirLockedError } from '../storage/lock.ts';
import { linkSummary } from './link-summary.ts';
import type { Catalog } from './load.ts';
import { formatLinks } from './report.ts';
import { syncCatalog } from './sync.ts';

export interface CheckCommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

export const USAGE = 'usage: npm run catalog:check [--concurrency N] [slug…]';

type Parsed = { slugs: string[]; concurrency: number } | { error: string };

export function parseCheckArgs(args: readonly string[]): Parsed {
  const slugs: string[] = [];
  let concurrency = 8;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--concurrency') {
      const n = Number(args[++i]);
      if (!Number.isInteger(n) || n < 1 || n > 64) return { error: '--concurrency takes a whole number from 1 to 64' };
      concurrency = n;
    } else if (a.startsWith('-')) return { error: `unknown option ${a}` };
    else slugs.push(a.toLowerCase());
  }
  return { slugs, concurrency };
}

export async function runCheckCommand(
  args: readonly string[],
  deps: { config: Config; catalog: Catalog; guard: OutboundGuard; io: CheckCommandIo },
): Promise<number> {
  const { io, catalog } = deps;
  const fail = (code: string, text: string, exit = 2) => {
    io.err(`catalog:check: ${code}: ${text}`);
    return exit;
  };
  const parsed = parseCheckArgs(args);
  if ('error' in parsed) return fail('USAGE', `${parsed.error}\n${USAGE}`);
  const unknown = parsed.slugs.filter((s) => !catalog.bySlug.has(s));
  if (unknown.length) return fail('UNKNOWN_SERVICE', `no service ${unknown.map((s) => JSON.stringify(s)).join(', ')}`);
  const entries = parsed.slugs.length ? parsed.slugs.map((s) => catalog.bySlug.get(s)!) : catalog.entries;

  let db: Awaited<ReturnType<typeof openStorage>>;
  try {
    db = await openStorage(deps.config);
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      return fail(
        'DATA_DIR_LOCKED',
        `${err.message}. The running service re-checks every link on its schedule; or stop it, or use DATABASE_URL`,
      );
    }
    return fail('STORAGE', (err as Error).message);
  }
  try {
    await syncCatalog(db, catalog);
    io.out(`checking the links of ${entries.length} service${entries.length === 1 ? '' : 's'}`);
    const summary = await checkEntries(
      { db, guard: deps.guard, userAgent: `optout-linkcheck/1.0 (+${deps.config.baseUrl}/docs)` },
      entries,
      {
        concurrency: parsed.concurrency,
        onLink: (slug, r) =>
          io.out([r.outcome.padEnd(10), String(r.http_status ?? '-').padEnd(4), slug, r.url, r.detail].join('  ')),
      },
    );
    io.out(
      `checked ${summary.links} links of ${summary.services} services from ${summary.started_at} to ${summary.finished_at}`,
    );
    io.out(formatLinks(await linkSummary(db, catalog)));
    return 0;
  } finally {
    await db.close();
  }
}
