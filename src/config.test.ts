import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';

describe('configuration', () => {
  test('an empty environment gives the embedded defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 3000);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.baseUrl, 'http://127.0.0.1:3000');
    assert.equal(c.apiUrl, c.baseUrl);
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.llm.provider, 'none');
    assert.equal(c.llm.timeoutMs, 20_000);
    assert.equal(c.scanDailyLimit, 3);
    assert.equal(c.trustProxy, false);
    assert.deepEqual(c.outboundAllowHosts, []);
    assert.match(c.dataDir, /\/data$/);
  });

  test('attempt limits have documented defaults and can be set; zero or garbage is refused', () => {
    assert.deepEqual(loadConfig({}).limits, {
      signInFailuresPerAddress: 5,
      signInFailuresPerIp: 20,
      scansPerIp: 30,
      connectionsPerIp: 20,
      unsubscribesPerIp: 2000,
      linkChecksPerIp: 30,
    });
    const c = loadConfig({ SIGNIN_FAILURES_PER_ADDRESS: '3', WS_CONNECTIONS_PER_IP: '100', LINK_CHECKS_PER_IP: '5' });
    assert.equal(c.limits.signInFailuresPerAddress, 3);
    assert.equal(c.limits.connectionsPerIp, 100);
    assert.equal(c.limits.linkChecksPerIp, 5);
    for (const [k, v] of [
      ['SIGNIN_FAILURES_PER_ADDRESS', '0'],
      ['SCANS_PER_IP', 'many'],
      ['UNSUBSCRIBES_PER_IP', '-1'],
    ]) {
      assert.throws(() => loadConfig({ [k!]: v }), ConfigError, k);
    }
  });

  test('scan caps have documented defaults and bounds', () => {
    assert.deepEqual(loadConfig({}).scanCaps, { messages: 250_000, headerBytes: 65_536, subscriptions: 5000 });
    assert.equal(loadConfig({ SCAN_MAX_MESSAGES: '1000' }).scanCaps.messages, 1000);
    assert.throws(() => loadConfig({ SCAN_MAX_HEADER_BYTES: '100' }), ConfigError);
  });

  test('values are parsed and the result is frozen', () => {
    const c = loadConfig({
      PORT: '8080',
      BASE_URL: 'https://optout.example/',
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1:8025, mail.internal',
      SCAN_DAILY_LIMIT: '5',
      TRUST_PROXY: '10.0.0.1,10.0.0.2',
    });
    assert.equal(c.port, 8080);
    assert.equal(c.baseUrl, 'https://optout.example');
    assert.deepEqual(c.outboundAllowHosts, ['127.0.0.1:8025', 'mail.internal']);
    assert.equal(c.scanDailyLimit, 5);
    assert.deepEqual(c.trustProxy, ['10.0.0.1', '10.0.0.2']);
    assert.ok(Object.isFrozen(c));
    assert.ok(Object.isFrozen(c.llm));
    assert.throws(() => {
      (c as { port: number }).port = 1;
    });
  });

  test('a hop count in TRUST_PROXY trusts that many proxies', () => {
    const c = loadConfig({ TRUST_PROXY: '1' });
    assert.equal(typeof c.trustProxy, 'function');
    const trust = c.trustProxy as (a: string, hop: number) => boolean;
    assert.equal(trust('10.0.0.1', 0), true);
    assert.equal(trust('10.0.0.1', 1), false);
  });

  test('every invalid variable is named in one error', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LLM_PROVIDER: 'gpt' }),
      (err: Error) => {
        assert.ok(err instanceof ConfigError);
        for (const name of ['PORT', 'DATABASE_URL', 'LLM_PROVIDER']) assert.match(err.message, new RegExp(name));
        return true;
      },
    );
  });

  test('links are re-verified weekly unless LINK_CHECK_SCHEDULE names another cron or off', () => {
    assert.equal(loadConfig({}).linkCheckSchedule, '0 4 * * 1');
    assert.equal(loadConfig({ LINK_CHECK_SCHEDULE: '30 2 * * 0' }).linkCheckSchedule, '30 2 * * 0');
    assert.equal(loadConfig({ LINK_CHECK_SCHEDULE: 'off' }).linkCheckSchedule, null);
    for (const bad of ['weekly', '* * *', '0 4 * * 1 2']) {
      assert.throws(() => loadConfig({ LINK_CHECK_SCHEDULE: bad }), /LINK_CHECK_SCHEDULE/, bad);
    }
  });

  test('the anthropic provider needs an API key', () => {
    assert.throws(() => loadConfig({ LLM_PROVIDER: 'anthropic' }), /LLM_API_KEY/);
  });

  test('empty strings count as unset', () => {
    assert.equal(loadConfig({ PORT: '', DATABASE_URL: '' }).port, 3000);
  });

  test('the Microsoft sign-in defaults', () => {
    const c = loadConfig({ BASE_URL: 'https://optout.example' });
    assert.equal(c.oauth.clientId, undefined);
    assert.equal(c.oauth.issuer, 'https://login.microsoftonline.com/common/v2.0');
    assert.equal(c.oauth.redirectUri, 'https://optout.example/auth/microsoft/callback');
    assert.deepEqual(c.oauth.scopes, [
      'openid',
      'profile',
      'email',
      'offline_access',
      'https://outlook.office.com/IMAP.AccessAsUser.All',
      'https://outlook.office.com/SMTP.Send',
    ]);
    assert.deepEqual(c.oauth.imap, { host: 'outlook.office365.com', port: 993, tls: 'implicit' });
    assert.deepEqual(c.oauth.smtp, { host: 'smtp.office365.com', port: 587, tls: 'starttls' });
  });

  test('OAUTH_* values are parsed: scopes, and the mail servers as URLs with their TLS mode', () => {
    const c = loadConfig({
      OAUTH_CLIENT_ID: 'abc',
      OAUTH_SCOPES: 'openid  offline_access https://outlook.office.com/IMAP.AccessAsUser.All',
      OAUTH_IMAP_URL: 'imap://mail.example:1143',
      OAUTH_SMTP_URL: 'smtps://mail.example',
      OAUTH_REDIRECT_URI: 'https://app.example/cb',
    });
    assert.equal(c.oauth.clientId, 'abc');
    assert.deepEqual(c.oauth.scopes, ['openid', 'offline_access', 'https://outlook.office.com/IMAP.AccessAsUser.All']);
    assert.deepEqual(c.oauth.imap, { host: 'mail.example', port: 1143, tls: 'starttls' });
    assert.deepEqual(c.oauth.smtp, { host: 'mail.example', port: 465, tls: 'implicit' });
    assert.equal(c.oauth.redirectUri, 'https://app.example/cb');
  });

  test('an issuer without TLS and malformed OAUTH_* values are refused by name', () => {
    assert.throws(
      () =>
        loadConfig({
          OAUTH_ISSUER: 'http://login.example',
          OAUTH_IMAP_URL: 'https://outlook.office365.com',
          OAUTH_SMTP_URL: 'imap://x',
          OAUTH_SCOPES: 'openid "quoted"',
        }),
      (err: Error) => {
        for (const name of ['OAUTH_ISSUER', 'OAUTH_IMAP_URL', 'OAUTH_SMTP_URL', 'OAUTH_SCOPES'])
          assert.match(err.message, new RegExp(name));
        return true;
      },
    );
  });
});

describe('SECURITY_CONTACT', () => {
  test('defaults to security@ the host of BASE_URL, or localhost for an address literal', () => {
    assert.equal(loadConfig({ BASE_URL: 'https://optout.example' }).securityContact, 'mailto:security@optout.example');
    assert.equal(loadConfig({}).securityContact, 'mailto:security@localhost');
  });

  test('takes a mailto, https or tel URI and refuses anything else', () => {
    for (const v of ['mailto:sec@example.org', 'https://example.org/report', 'tel:+1-201-555-0123'])
      assert.equal(loadConfig({ SECURITY_CONTACT: v }).securityContact, v);
    for (const v of ['sec@example.org', 'http://example.org/report', 'javascript:alert(1)', 'mailto:nobody'])
      assert.throws(() => loadConfig({ SECURITY_CONTACT: v }), /SECURITY_CONTACT/, v);
  });
});
