/**
 * Bounded concurrency: at most `total` tasks at once, and at most `perKey` for the same
 * key (a destination host), so a batch of 500 senders finishes quickly without sending
 * any one server more than a few requests at a time.
 */
export function createLimiter(total: number, perKey: number) {
  let running = 0;
  const byKey = new Map<string, number>();
  const waiting: { key: string; start: () => void }[] = [];

  const canStart = (key: string) => running < total && (byKey.get(key) ?? 0) < perKey;
  const pump = () => {
    for (let i = 0; i < waiting.length && running < total; ) {
      const w = waiting[i]!;
      if (canStart(w.key)) {
        waiting.splice(i, 1);
        w.start();
      } else i++;
    }
  };

  return async function run<T>(key: string, task: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      const start = () => {
        running++;
        byKey.set(key, (byKey.get(key) ?? 0) + 1);
        resolve();
      };
      if (canStart(key)) start();
      else waiting.push({ key, start });
    });
    try {
      return await task();
    } finally {
      running--;
      const n = (byKey.get(key) ?? 1) - 1;
      if (n === 0) byKey.delete(key);
      else byKey.set(key, n);
      pump();
    }
  };
}
