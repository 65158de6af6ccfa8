/**
 * Polls `fn` until it returns something other than undefined: for state another process or a
 * background worker changes, which announces nothing a test could await.
 */
export async function waitFor<T>(fn: () => Promise<T | undefined>, timeoutMs = 20_000, intervalMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
