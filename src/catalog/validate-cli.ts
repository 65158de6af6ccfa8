/**
 * `npm run catalog:validate [file…]`: validates catalog data files and prints one line per
 * problem (file: field: message). Exit code 1 when any record is bad.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { ServiceRecord } from './record.schema.ts';
import { type CatalogIssue, formatIssue, validateCatalog, validateRecord } from './validate.ts';

const dir = resolve(import.meta.dirname, '../../catalog/services');
const args = process.argv.slice(2);
const files = args.length
  ? args.map((f) => resolve(f))
  : (await readdir(dir)).filter((f) => f.endsWith('.json')).map((f) => join(dir, f));

const issues: CatalogIssue[] = [];
const good: { file: string; record: ServiceRecord }[] = [];
for (const file of files.sort()) {
  // catalog/services/x.json inside the repository; any other file by the path it was given
  const at = file.lastIndexOf('/catalog/services/');
  const rel = at >= 0 ? file.slice(at + 1) : relative(process.cwd(), file);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    issues.push({ file: rel, path: '', message: `not valid JSON: ${(err as Error).message}` });
    continue;
  }
  const { record, issues: own } = validateRecord(rel, json);
  issues.push(...own);
  if (record) good.push({ file: rel, record });
}
if (!args.length) issues.push(...validateCatalog(good));
for (const issue of issues) process.stdout.write(`${formatIssue(issue)}\n`);
process.stdout.write(`${files.length} files, ${good.length} valid records, ${issues.length} problems\n`);
process.exitCode = issues.length ? 1 : 0;
