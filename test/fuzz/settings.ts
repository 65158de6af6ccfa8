/**
 * The fuzzers' budget: a fixed seed and a run count that keep `npm test` under a minute for all
 * of them together. A longer run (docs/security.md, "Fuzzing") sets FUZZ_RUNS (runs per
 * property) and FUZZ_SEED; a failure prints the seed and path that reproduce it.
 */
const runs = Number(process.env.FUZZ_RUNS);
const seed = Number(process.env.FUZZ_SEED);

export const FUZZ_SEED = Number.isInteger(seed) ? seed : 20261126;

/** fast-check parameters for a property whose default is `defaultRuns` runs. */
export function fuzzParams(defaultRuns: number) {
  return {
    seed: FUZZ_SEED,
    numRuns: Number.isInteger(runs) && runs > 0 ? runs : defaultRuns,
  } as const;
}
