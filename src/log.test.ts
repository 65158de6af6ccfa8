import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { accessLineWriter, createLogger } from './log.ts';

function captured() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      cb();
    },
  });
  return { logger: createLogger('info', sink), lines };
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
    const sink = new Writable({
      write(chunk, _enc, cb) {
        raw.push(String(chunk));
        cb();
      },
    });
    const logger = createLogger('info', sink);
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

  test('another logger gets none (the access log then logs through pino)', async () => {
    const { default: pino } = await import('pino');
    assert.equal(accessLineWriter(pino({ enabled: false })), null);
  });
});

// The service's stdout: lines leave in batches, at most FLUSH_MS after they were logged.
const CHILD = `
import { createLogger } from ${JSON.stringify(resolve(import.meta.dirname, 'log.ts'))};
const log = createLogger('info');
if (process.argv[1] === 'rest') {
  log.info('at rest');
  setInterval(() => {}, 1000);
} else {
  for (let i = 0; i < 5000; i++) log.info({ i }, 'burst');
  process.exit(0);
}
`;
const child = (mode: string) =>
  spawn(process.execPath, ['--input-type=module', '-e', CHILD, mode], { stdio: ['ignore', 'pipe', 'inherit'] });

describe('stdout', () => {
  test('a line logged at rest is written at once, without waiting for more', async () => {
    const c = child('rest');
    try {
      const first = await createInterface({ input: c.stdout! })[Symbol.asyncIterator]().next();
      assert.equal((JSON.parse(String(first.value)) as { msg: string }).msg, 'at rest');
    } finally {
      c.kill();
    }
  });

  test('lines logged right before process.exit are all written', async () => {
    const c = child('burst');
    const lines: string[] = [];
    createInterface({ input: c.stdout! }).on('line', (l) => lines.push(l));
    const code = await new Promise((r) => c.on('close', r));
    assert.equal(code, 0);
    assert.equal(lines.length, 5000);
    assert.equal((JSON.parse(lines.at(-1)!) as { i: number }).i, 4999);
  });
});
