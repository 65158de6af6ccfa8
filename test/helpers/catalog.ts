/**
 * Catalogs for tests whose links must point at loopback servers. The file validator
 * insists on https URLs on public domain names — right for the published catalog, but
 * a test's target is http://127.0.0.1:<port> — so these records skip file validation and
 * go straight to the same in-memory builder the loader uses.
 */
import { type Catalog, catalogFrom } from '../../src/catalog/load.ts';
import { makeRecord } from './record.ts';

export function loopbackCatalog(targets: { slug: string; url: string }[]): Catalog {
  const records = targets.map(({ slug, url }) => {
    const u = new URL(url);
    return {
      ...makeRecord({
        website: u.origin,
        domains: { web: [u.hostname], email: [] },
        cancel: { url, help_url: null },
      }),
      slug,
      name: `Loopback ${slug}`,
    };
  });
  return catalogFrom(records, [{ slug: 'software-ai', name: 'Software', description: 'test' }]);
}
