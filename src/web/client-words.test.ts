import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WS_ERRORS, type WsErrorCode } from '../channel/errors.ts';
import type { Subscription } from '../channel/protocol.ts';
import { errorAdvice } from './client/tool/advice.ts';
import { plainStatus, sinceYouLeft, technicalLines } from './client/tool/statuses.ts';

const CODES = Object.keys(WS_ERRORS) as WsErrorCode[];
const help = {
  name: 'Fastmail',
  url: 'https://app.fastmail.com/settings/security/devicekeys',
  text: 'Settings › App passwords.',
};

describe('what the tool says', () => {
  test('every error code of the catalog has its own advice, not the generic fallback', () => {
    const generic = errorAdvice('SOMETHING_NEW' as WsErrorCode, 'INBOX, Archive', help);
    for (const code of CODES) {
      const said = errorAdvice(code, 'INBOX, Archive', help, '2026-11-23T00:00:00.000Z');
      assert.notEqual(said, generic, code);
      assert.ok(said.length > 40, code);
    }
  });

  test('a refused sign-in explains app passwords for the chosen provider', () => {
    const said = errorAdvice('AUTH_FAILED', 'auth failed', help);
    assert.match(said, /^Fastmail did not accept the sign-in/);
    assert.match(said, /app password/);
    assert.ok(said.includes(help.text));
  });

  test('a limit refusal says when to try again, as a time and a wait', () => {
    for (const code of [
      'TOO_MANY_SIGN_IN_FAILURES',
      'TOO_MANY_SCANS',
      'TOO_MANY_UNSUBSCRIBES',
      'TOO_MANY_CONNECTIONS',
    ] as const) {
      assert.match(errorAdvice(code, '', help, undefined, 1500), /at \d\d:\d\d \(in 25 minutes\)/, code);
      assert.match(errorAdvice(code, '', help, undefined, 30), /\(in 30 seconds\)/, code);
    }
    assert.match(errorAdvice('TOO_MANY_SIGN_IN_FAILURES', '', help, undefined, 600), /app password/);
  });

  test('statuses say what the outcome proves, and read differently for a dry run', () => {
    const r = {
      type: 'unsubscribe_result',
      id: 'x',
      status: 'unsubscribed',
      method: 'one_click',
      dry_run: false,
    } as const;
    // a 2xx is the sender accepting the request, not the mail stopping
    assert.equal(plainStatus(r, false).label, 'Unsubscribe request accepted by the sender');
    assert.doesNotMatch(plainStatus(r, false).label, /^Unsubscribed/);
    assert.equal(plainStatus({ ...r, status: 'email_sent' }, false).label, 'Email sent from your address');
    assert.equal(plainStatus({ ...r, status: 'open_link' }, false).label, 'Needs you: open this link');
    assert.match(plainStatus({ ...r, status: 'failed' }, false).label, /try again$/);
    // a failure says what its attempts ran into: unreachable beats refused, refused beats the rest
    const failed = (...outcomes: ('timeout' | 'rejected' | 'auth' | 'blocked')[]) =>
      plainStatus(
        { ...r, status: 'failed', attempts: outcomes.map((outcome) => ({ method: 'one_click', outcome })) },
        false,
      ).label;
    assert.equal(failed('timeout'), 'Could not reach the sender — try again');
    assert.equal(failed('rejected', 'timeout'), 'Could not reach the sender — try again');
    assert.equal(failed('rejected'), 'The sender refused the request — try again later');
    assert.match(failed('auth'), /app password/);
    assert.match(failed('blocked'), /not safe to contact/);
    assert.match(plainStatus({ ...r, status: 'skipped' }, true).label, /check this sender first/);
    assert.match(plainStatus({ ...r, dry_run: true }, false).label, /^Would /);
    assert.equal(plainStatus({ ...r, dry_run: true }, false).tone, 'pending');
  });

  test('the details name the method, the outcome code and the server’s account', () => {
    const lines = technicalLines({
      type: 'unsubscribe_result',
      id: 'x',
      status: 'failed',
      method: null,
      detail: "One-click: The sender's server refused it (HTTP 404).",
      dry_run: false,
    });
    assert.deepEqual(lines, [
      'Method: none used',
      'Outcome: failed',
      "One-click: The sender's server refused it (HTTP 404).",
    ]);
  });

  test('a list left earlier says what the re-scan found since', () => {
    const left = (verification: Subscription['verification'], since?: number) =>
      sinceYouLeft({
        unsubscribed_at: '2026-11-01T10:00:00.000Z',
        verification,
        ...(since === undefined ? {} : { since_unsubscribe: since }),
      } as Subscription);
    assert.deepEqual(left('ineffective', 2), {
      tone: 'bad',
      text: 'Still mailing since you left on 1 Nov 2026: 2 messages',
    });
    assert.deepEqual(left('verified_quiet', 0), { tone: 'ok', text: 'Nothing new since you left on 1 Nov 2026' });
    assert.match(
      left('verified_quiet', 1)!.text,
      /^Stopped: nothing new since two days after you left on 1 Nov 2026 \(1 message/,
    );
    assert.equal(
      left('pending', 1)!.text,
      'You left on 1 Nov 2026, 1 message since; senders may take two days, so scan again after 3 Nov 2026',
    );
    assert.equal(left(undefined), null);
  });
});
