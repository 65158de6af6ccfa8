/**
 * `npm run catalog:report`: prints the catalog report (report.ts) for the records in
 * catalog/services and the rights files in catalog/rights. Link checks live in the database:
 * they are read from the configured storage (DATABASE_URL, or DATA_DIR when no running service
 * holds it); otherwise the report says why it has none. The most-used services are those listed, in
 * order, in catalog/most-used.json.
 */
import { loadConfig } from '../config.ts';
import { storedLinkSummary } from './link-summary.ts';
import { CATALOG_DIR, loadCatalog } from './load.ts';
import { loadMostUsed } from './most-used.ts';
import { computeReport, formatReport } from './report.ts';

const config = loadConfig();
const catalog = await loadCatalog();
const stored = await storedLinkSummary(config, catalog);
const mostUsed = await loadMostUsed(CATALOG_DIR);
const report = computeReport(
  catalog.entries.map((e) => e.record),
  {
    today: new Date(),
    rightsRegions: [...catalog.rights.keys()],
    mostUsed: mostUsed.slugs,
    ...('links' in stored ? { links: stored.links } : { linksUnknownReason: stored.reason }),
  },
);
process.stdout.write(formatReport(report));
