import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, mock, test } from 'node:test';
import { accessLineWriter, createLogger } from './log.ts';

/** A destination that hands each line written to it, as a string, to `onLine`. */
function sink(onLine: (line: string) => void) {
  return new Writable({
    write(chunk, _enc, cb) {
      onLine(String(chunk));
      cb();
    },
  });
}

function captured() {
  const lines: Record<string, unknown>[] = [];
  return {
    logger: createLogger(
      'info',
      sink((l) => lines.push(JSON.parse(l) as Record<string, unknown>)),
    ),
    lines,
  };
}

describe('redaction', () => {
  test('secret fields, headers and an error’s connection options are censored', () => {
    const { logger, lines } = captured();
    logger.info({ password: 'p1', token: 't1', api_key: 'k1', refresh_token: 'r1', otp: '123456' }, 'fields');
    logger.info({ headers: { authorization: 'Bearer a1', cookie: 'c=1', accept: '*/*' } }, 'headers');
    logger.info(
      { req: { method: 'GET', url: '/x?token=t2', headers: { authorization: 'Bearer a2', cookie: 'c=2' } } },
      'request',
    );
    const err = Object.assign(new Error('connection refused'), { config: { password: 'p2' }, options: { auth: 'a3' } });
    logger.error({ err }, 'failed');
    const out = JSON.stringify(lines);
    for (const secret of ['p1', 't1', 'k1', 'r1', '123456', 'a1', 'c=1', 'a2', 'c=2', 't2', 'p2', 'a3'])
      assert.ok(!out.includes(secret), `${secret} was logged`);
    assert.equal(lines[0]!.password, '[redacted]');
    assert.equal((lines[1]!.headers as Record<string, string>).accept, '*/*', 'other headers stay');
    assert.equal((lines[3]!.err as Record<string, string>).message, 'connection refused', 'the error stays readable');
  });

  test('fields that are not secrets are written as they are', () => {
    const { logger, lines } = captured();
    logger.info({ reqId: 'req-1', method: 'GET', route: '/api/v1/services/:slug', status: 200, ms: 0.5 }, 'request');
    assert.deepEqual(
      { ...lines[0], time: undefined },
      {
        level: 30,
        time: undefined,
        service: 'optout',
        reqId: 'req-1',
        method: 'GET',
        route: '/api/v1/services/:slug',
        status: 200,
        ms: 0.5,
        msg: 'request',
      },
    );
    assert.match(String(lines[0]!.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});

describe('the access line', () => {
  test('is byte for byte the line pino writes for the same fields, but the time', () => {
    const raw: string[] = [];
    const logger = createLogger(
      'info',
      sink((l) => raw.push(l)),
    );
    const write = accessLineWriter(logger);
    assert.ok(write, 'the service logger has one');
    const fields = { reqId: 'req-7"x', method: 'GET', route: '/api/v1/services/:slug', status: 200, ms: 1.25 };
    logger.info(fields, 'request');
    write(fields.reqId, fields.method, fields.route, fields.status, fields.ms);
    const untimed = (l: string) => l.replace(/"time":"[^"]*"/, '"time":""');
    assert.equal(raw.length, 2);
    assert.equal(untimed(raw[1]!), untimed(raw[0]!));
    assert.match(raw[1]!, /"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/);
  });

  test('carries the time of the request to the millisecond, across seconds', () => {
    const raw: string[] = [];
    const write = accessLineWriter(
      createLogger(
        'info',
        sink((l) => raw.push(l)),
      ),
    )!;
    mock.timers.enable({ apis: ['Date'], now: Date.UTC(2026, 10, 27, 9, 59, 59, 5) });
    try {
      write('req-1', 'GET', '/healthz', 200, 0.1);
      mock.timers.tick(90);
      write('req-2', 'GET', '/healthz', 200, 0.1);
      mock.timers.tick(905);
      write('req-3', 'GET', '/healthz', 200, 0.1);
      mock.timers.tick(1);
      write('req-4', 'POST', '/healthz', 200, 0.1);
    } finally {
      mock.timers.reset();
    }
    const lines = raw.map((l) => JSON.parse(l) as { time: string; method: string; route: string });
    assert.deepEqual(
      lines.map((l) => l.time),
      ['2026-11-27T09:59:59.005Z', '2026-11-27T09:59:59.095Z', '2026-11-27T10:00:00.000Z', '2026-11-27T10:00:00.001Z'],
    );
    assert.deepEqual(
      lines.map((l) => `${l.method} ${l.route}`),
      ['GET /healthz', 'GET /healthz', 'GET /healthz', 'POST /healthz'],
    );
  });

  test('another logger gets none (the access log then logs through pino)', async () => {
    const { default: pino } = await import('pino');
    assert.equal(accessLineWriter(pino({ enabled: false })), null);
  });
});
