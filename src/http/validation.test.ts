import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { memoizingValidatorCompiler } from './validation.ts';

/** a querystring-like schema that counts how often zod runs it */
function counted() {
  const runs = { n: 0 };
  const schema = z.object({
    q: z
      .string()
      .trim()
      .max(100)
      .transform((q) => {
        runs.n++;
        return q;
      }),
    page: z.coerce.number().int().min(1).default(1),
  });
  return { schema, runs };
}

type Route = Parameters<typeof memoizingValidatorCompiler>[0];
const compile = (schema: z.ZodType, httpPart: string) =>
  memoizingValidatorCompiler({ schema, httpPart, method: 'GET', url: '/x' } as Route) as (data: unknown) => {
    error?: Error;
    value?: unknown;
  };

describe('request validation', () => {
  test('a query seen before gets the first answer, frozen, without running zod again', () => {
    const { schema, runs } = counted();
    const validate = compile(schema, 'querystring');
    const first = validate({ q: ' netflix ', page: '2' });
    const again = validate({ q: ' netflix ', page: '2' });
    assert.deepEqual(first.value, { q: 'netflix', page: 2 });
    assert.equal(again.value, first.value);
    assert.ok(Object.isFrozen(again.value));
    assert.equal(runs.n, 1);
    // another input is its own entry
    assert.deepEqual(validate({ q: 'netflix', page: '3' }).value, { q: 'netflix', page: 3 });
    assert.equal(runs.n, 2);
  });

  test('an invalid input is refused every time, with the field named, and never kept', () => {
    const { schema } = counted();
    const validate = compile(schema, 'params');
    for (let i = 0; i < 2; i++) {
      const r = validate({ q: 'x'.repeat(101) });
      assert.ok(r.error, `try ${i + 1}`);
      assert.equal(r.value, undefined);
      assert.deepEqual(
        (r.error as unknown as { instancePath: string }[]).map((e) => e.instancePath),
        ['/q'],
      );
    }
  });

  test('bodies are validated every time', () => {
    const { schema, runs } = counted();
    const validate = compile(schema, 'body');
    validate({ q: 'a' });
    validate({ q: 'a' });
    assert.equal(runs.n, 2);
  });

  test('a long input is validated without being kept; the kept set is bounded', () => {
    const { schema, runs } = counted();
    const validate = compile(schema, 'querystring');
    // unknown keys are valid (stripped): a long one must not grow the memory
    const long = { q: 'a', junk: 'j'.repeat(600) };
    validate(long);
    validate(long);
    assert.equal(runs.n, 2);
    runs.n = 0;
    for (let i = 0; i <= 1000; i++) validate({ q: `q${i}` });
    assert.equal(runs.n, 1001);
    validate({ q: 'q1000' });
    assert.equal(runs.n, 1001, 'the newest is kept');
    validate({ q: 'q0' });
    assert.equal(runs.n, 1002, 'the oldest was dropped');
  });
});
