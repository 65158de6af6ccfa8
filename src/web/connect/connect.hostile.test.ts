/**
 * The hand-off page against bad and hostile input: forms with parts missing, too long or of
 * the wrong kind, tokens that are not ours, markup in the query, and a person (or a script)
 * that keeps posting passwords. Each gets a clear answer and leaves the hand-off as it was.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/helpers/app.ts';
import type { Handoff } from '../../handoff/store.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ runtime: { worker: false } });
});
after(() => t.close());

/** A custom server the outbound guard refuses (a loopback port not allowed): every sign-in fails at once. */
function handoff(): Handoff {
  const made = t.runtime.handoffs.create({
    registrationId: 'reg_hostile',
    email: 'frank@example.test',
    provider: 'custom',
    imap: { host: '127.0.0.1', port: 9, tls: 'implicit' },
  });
  assert.ok(made.ok);
  return made.handoff;
}

const post = (path: string, payload: string, type = 'application/x-www-form-urlencoded') =>
  t.app.inject({ method: 'POST', url: path, headers: { 'content-type': type }, payload });
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe('the hand-off page under bad input', () => {
  test('a form without token or password, or with an oversized password, is refused and changes nothing', async () => {
    const h = handoff();
    for (const body of [
      form({ password: 'x' }),
      form({ token: h.connectToken }),
      form({ token: h.connectToken, password: '' }),
      form({ token: h.connectToken, password: 'p'.repeat(1025) }),
      form({ token: 'x'.repeat(201), password: 'p' }),
    ]) {
      const r = await post('/connect', body);
      assert.equal(r.statusCode, 400, body.slice(0, 60));
      assert.match(String(r.headers['content-type']), /text\/html/);
    }
    assert.equal(h.signIns, 0);
    assert.equal(h.status, 'awaiting_user');
  });

  test('an unknown token is the page for a link that has ended (404), never a form', async () => {
    const r = await post('/connect', form({ token: 'hoc_not-ours', password: 'p' }));
    assert.equal(r.statusCode, 404);
    assert.ok(!r.body.includes('type="password"'));
    const g = await t.app.inject({ method: 'GET', url: '/connect?token=%3Cscript%3Ealert(1)%3C%2Fscript%3E' });
    assert.equal(g.statusCode, 404);
    assert.ok(!g.body.includes('<script>alert(1)'));
    const none = await t.app.inject({ method: 'GET', url: '/connect' });
    assert.equal(none.statusCode, 404);
  });

  test('a body over the limit is refused with 413; another media type with 415', async () => {
    const h = handoff();
    const big = await post('/connect', form({ token: h.connectToken, password: 'p'.repeat(5000) }));
    assert.equal(big.statusCode, 413);
    const xml = await post('/connect', '<password>p</password>', 'application/xml');
    assert.equal(xml.statusCode, 415);
    assert.equal(h.signIns, 0);
  });

  test('after five failed sign-ins the page takes no more passwords and says why', async () => {
    const h = handoff();
    for (let i = 0; i < 7; i++) {
      const r = await post('/connect', form({ token: h.connectToken, password: `guess-${i}` }));
      assert.equal(r.statusCode, 303);
    }
    assert.equal(h.signIns, 5);
    assert.equal(h.status, 'failed');
    assert.equal(h.error?.code, 'HOST_NOT_ALLOWED');
    const page = await t.app.inject({ method: 'GET', url: `/connect?token=${h.connectToken}` });
    assert.equal(page.statusCode, 200);
    assert.ok(!page.body.includes('type="password"'), 'no form once the tries are spent');
    assert.match(page.body, /no tries left/);
  });

  test('every page of it is neither cached nor indexed', async () => {
    const h = handoff();
    const r = await t.app.inject({ method: 'GET', url: `/connect?token=${h.connectToken}` });
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.headers['x-robots-tag'], 'noindex, nofollow');
    assert.match(String(r.headers['referrer-policy']), /no-referrer/);
  });
});
