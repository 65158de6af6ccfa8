/**
 * Request validation: zod, through fastify-type-provider-zod's compiler, with the answers for
 * path parameters and query strings remembered by their value. The catalog's read routes get
 * the same few slugs and queries over and over (a search box sends "netf…" for every visitor),
 * and running them through zod each time was a few percent of such a request's work
 * (docs/benchmarks.md, bench/api).
 *
 * - Only valid results are kept, frozen, so a handler cannot change what the next request gets;
 *   an invalid input is parsed every time, and its error names the field as zod words it.
 * - Bounded: at most MAX_ENTRIES inputs of at most MAX_KEY characters (JSON); the oldest is
 *   dropped first, and a longer input is validated without being kept.
 * - Sound only for pure schemas — the same input always gives the same output — which the
 *   params and querystring schemas are (no defaults from the clock, no transforms with effects).
 *   Bodies are validated every time.
 */
import { validatorCompiler } from 'fastify-type-provider-zod';

const MAX_ENTRIES = 1000;
const MAX_KEY = 512;

type Compiler = typeof validatorCompiler;
/** what the zod compiler's validators return (fastify-type-provider-zod, core) */
type Result = { error?: Error; value?: unknown };

export const memoizingValidatorCompiler: Compiler = (route) => {
  const compiled = validatorCompiler(route);
  if (route.httpPart !== 'params' && route.httpPart !== 'querystring') return compiled;
  const validate = compiled as (data: unknown) => Result;
  const known = new Map<string, Result>();
  return (data: unknown): Result => {
    // Path parameters and query values are strings (arrays of them for a repeated query key):
    // their JSON names the input exactly.
    const key = JSON.stringify(data);
    if (key === undefined || key.length > MAX_KEY) return validate(data);
    const hit = known.get(key);
    if (hit !== undefined) return hit;
    const result = validate(data);
    if (result.error) return result;
    const kept = { value: Object.freeze(result.value) };
    if (known.size >= MAX_ENTRIES) known.delete(known.keys().next().value!);
    known.set(key, kept);
    return kept;
  };
};
