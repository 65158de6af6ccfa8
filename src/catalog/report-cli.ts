/**
 * `npm run catalog:report`: prints the catalog report (report.ts) for the records in
 * catalog/services and the rights files in catalog/rights. Link-check results live in the
 * database; `catalog:check --links` prints them for a run, so this report says so when it has none.
 */
import { loadCatalog } from './load.ts';
import { computeReport, formatReport } from './report.ts';

const catalog = await loadCatalog();
const report = computeReport(
  catalog.entries.map((e) => e.record),
  { today: new Date(), rightsRegions: [...catalog.rights.keys()] },
);
process.stdout.write(formatReport(report));
