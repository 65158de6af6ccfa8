/**
 * The service's entry (`npm start`, deploy/start.sh): turns on Node's compile cache, then loads
 * main.ts. The cache keeps the TypeScript modules with their types already stripped as well as
 * compiled, so a start after the first never loads Node's type stripper (a WebAssembly build of
 * swc, ~17 MiB resident for the life of the process). An entry written in TypeScript is always
 * stripped, before any line of it can turn the cache on; this file is JavaScript for that reason
 * alone. `node src/main.ts` still works, with that memory and a slower start (docs/benchmarks.md).
 */
import module from 'node:module';

// NODE_COMPILE_CACHE, else os.tmpdir()/node-compile-cache; a directory that cannot be used only
// makes starts slower (the status is not an error).
module.enableCompileCache?.();
await import('./main.ts');
