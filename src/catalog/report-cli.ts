/**
 * `npm run catalog:report`: prints the catalog report (report.ts) for the records in
 * catalog/services and the rights files in catalog/rights. Link checks live in the database:
 * they are read from the configured storage (DATABASE_URL, or DATA_DIR when no running service
 * holds it); otherwise the report says why it has none.
 */
import { loadConfig } from '../config.ts';
import { storedLinkSummary } from './link-summary.ts';
import { loadCatalog } from './load.ts';
import { computeReport, formatReport } from './report.ts';

const config = loadConfig();
const catalog = await loadCatalog();
const stored = await storedLinkSummary(config, catalog);
const report = computeReport(
  catalog.entries.map((e) => e.record),
  {
    today: new Date(),
    rightsRegions: [...catalog.rights.keys()],
    ...('links' in stored ? { links: stored.links } : { linksUnknownReason: stored.reason }),
  },
);
process.stdout.write(formatReport(report));
