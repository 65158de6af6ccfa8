/**
 * Keeps the hidden classes of process.nextTick's queue entries alive for the life of the process,
 * so that Node's nextTick stays on V8's fast path after a full collection.
 *
 * Node builds each queue entry as an object literal whose first keys are computed (symbols), and
 * V8 defines such keys one at a time, remembering for each the hidden class (map) it saw, weakly.
 * A memory-reducing full collection — the one after start (settle.ts), or V8's memory reducer
 * when the process goes idle — frees those intermediate maps when no entry happens to be queued at
 * that moment. V8 then reads the cleared memory as a mismatch and marks the site megamorphic for
 * good, so every later nextTick defines its keys through the runtime. Node calls nextTick several
 * times per HTTP request: a service lookup took a fifth more instructions that way (200.7k against
 * 167.3k, docs/benchmarks.md). One entry held here keeps its maps, and with them the memory of
 * the fast path, alive.
 *
 * The entry is caught through async_hooks' init callback, which Node calls with the entry itself
 * ("TickObject"); the hook is enabled for one nextTick only.
 */
import { createHook } from 'node:async_hooks';

let kept: object | undefined;

/** Holds one nextTick queue entry for good; later calls do nothing. Returns whether one is held. */
export function keepTickShape(): boolean {
  if (kept) return true;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject' && kept === undefined) kept = resource;
    },
  });
  hook.enable();
  try {
    process.nextTick(noop);
  } finally {
    hook.disable();
  }
  return kept !== undefined;
}

function noop() {}
