import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WS_ERRORS, type WsErrorCode } from '../channel/errors.ts';
import { errorAdvice, statusLabel } from './client/tool/words.ts';

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

  test('statuses read differently for a dry run', () => {
    const r = { type: 'unsubscribe_result', id: 'x', status: 'email_sent', method: 'mailto', dry_run: false } as const;
    assert.equal(statusLabel(r), 'Unsubscribe email sent (email)');
    assert.equal(statusLabel({ ...r, dry_run: true }), 'Will send an unsubscribe email (email)');
    assert.equal(statusLabel({ ...r, status: 'failed', method: null }), 'Failed');
  });
});
