/**
 * The Node flags `npm start` runs the service with (package.json `config.nodeFlags`), so a
 * benchmark's child process runs optout's code as the service would: `--max-semi-space-size=2`
 * (V8 otherwise sizes the young generation from the machine's memory, 64 MB semi-spaces on
 * 24 GiB) and `--liftoff-only` (PGlite's WebAssembly without V8's optimizing compiler); see
 * docs/benchmarks.md.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as {
  config: { nodeFlags: string };
};

export const SERVICE_NODE_FLAGS: string[] = pkg.config.nodeFlags.split(/\s+/).filter(Boolean);
