import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { Logger } from 'pino';
import { startTestApp, type TestApp } from '../test/helpers/app.ts';
import { createLogger } from './log.ts';
import { deferredChildLogger, withDeferredRequestLoggers } from './log-request.ts';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { logger: createLogger(level, sink), lines };
}

/** counts the real children pino makes of `logger` and of loggers derived from it */
function countingChildren(logger: Logger) {
  const made = { n: 0 };
  const child = logger.child;
  Object.assign(logger, {
    child(this: Logger, ...a: Parameters<Logger['child']>) {
      made.n++;
      return child.apply(this, a);
    },
  });
  return made;
}

describe('request loggers', () => {
  test('a request logger that logs nothing at the level in force makes no pino child', () => {
    const { logger, lines } = capture('info');
    const made = countingChildren(logger);
    const req = deferredChildLogger(logger, { reqId: 'req-1' });
    req.debug('not at info');
    assert.equal(made.n, 0);
    assert.equal(lines.length, 0);
  });

  test('the first line it writes makes the child: bindings and redaction as pino gives them', () => {
    const { logger, lines } = capture('info');
    const made = countingChildren(logger);
    const req = deferredChildLogger(logger, { reqId: 'req-2' });
    req.info({ password: 'hunter2' }, 'one');
    req.warn('two');
    assert.equal(made.n, 1, 'one child, made once');
    assert.deepEqual(
      lines.map((l) => [l.reqId, l.msg, l.password]),
      [
        ['req-2', 'one', '[redacted]'],
        ['req-2', 'two', undefined],
      ],
    );
    assert.equal(req.bindings().reqId, 'req-2');
  });

  test('Fastify’s server logger from the wrapped instance logs as the logger does, and its children are deferred', () => {
    const { logger, lines } = capture('info');
    const made = countingChildren(logger);
    // what Fastify does with a loggerInstance: one child at start, then one per request
    const server = withDeferredRequestLoggers(logger).child({}, {});
    assert.equal(made.n, 1);
    const before = made.n;
    server.info('started');
    const req = server.child({ reqId: 'req-3' }, {});
    req.debug('quiet');
    assert.equal(made.n, before, 'no child for a request that logged nothing');
    req.child({ part: 'x' }).error({ token: 't0ps3cret' }, 'failed');
    assert.deepEqual(
      lines.map((l) => [l.msg, l.reqId, l.part, l.token]),
      [
        ['started', undefined, undefined, undefined],
        ['failed', 'req-3', 'x', '[redacted]'],
      ],
    );
  });
});

describe('request loggers in the app', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      setup(app) {
        app.get('/api/v1/_logs', async (req) => {
          req.log.warn({ password: 'hunter2' }, 'route line');
          return { ok: true };
        });
      },
    });
  });
  after(() => t.close());

  test('a route’s own line carries its request id, with secrets redacted', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/_logs' });
    assert.equal(res.statusCode, 200);
    const lines = t.logs.flatMap((c) => c.split('\n').filter(Boolean)).map((l) => JSON.parse(l));
    const own = lines.find((l) => l.msg === 'route line');
    const access = lines.find((l) => l.msg === 'request' && l.route === '/api/v1/_logs');
    assert.ok(own && access, 'both lines written');
    assert.equal(own.reqId, access.reqId);
    assert.equal(own.password, '[redacted]');
    assert.ok(!t.logs.join('').includes('hunter2'));
  });
});
