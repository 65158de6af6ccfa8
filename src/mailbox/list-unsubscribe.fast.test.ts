/**
 * classifyUri skips URL.parse for plain http(s) authorities (plainAuthority). That shortcut must
 * never accept a URI that URL.parse would refuse, or that would parse with credentials or
 * without a host: checked here on seeded random URIs built from tricky pieces.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainAuthority } from './list-unsubscribe.ts';

const viaUrl = (uri: string) => {
  const url = URL.parse(uri);
  return url !== null && url.hostname !== '' && url.username === '' && url.password === '';
};

test('plainAuthority accepts only what URL.parse accepts with a host and no credentials', () => {
  let x = 99;
  const rnd = (n: number) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % n;
  };
  const schemes = ['https://', 'http://', 'HTTPS://', 'https:/', 'https:///'];
  const hosts = [
    'a',
    'example',
    'xn--',
    'xn--nxasmq6b',
    'XN--a',
    '0x1f',
    '0X',
    '123',
    '1',
    '256',
    '0',
    'a-b',
    '-a',
    'b-',
    'é',
    '_x',
    'user@',
    'u:p@',
    '',
    '.',
    '[::1]',
    '%41',
  ];
  const ports = ['', ':', ':0', ':80', ':65535', ':65536', ':99999', ':0080', ':x'];
  const rests = ['', '/', '/p?q=1#f', '?x', '#y', '\\\\b', '/@x', ':/', '@', ' '];
  let accepted = 0;
  for (let i = 0; i < 200_000; i++) {
    const labels = Array.from({ length: 1 + rnd(4) }, () => hosts[rnd(hosts.length)]).join(rnd(5) ? '.' : '');
    const uri = `${schemes[rnd(schemes.length)]}${labels}${ports[rnd(ports.length)]}${rests[rnd(rests.length)]}`;
    if (plainAuthority(uri)) {
      accepted++;
      assert.ok(viaUrl(uri), uri);
    }
  }
  assert.ok(accepted > 2000, `the shortcut is taken (${accepted})`);
  for (const uri of [
    'https://b109.example.com/unsubscribe/vrDVQs_MvuT5',
    'http://a.example:8080?x=1',
    'https://A.EXAMPLE',
  ])
    assert.ok(plainAuthority(uri), uri);
  for (const uri of [
    'https://1.2.3.4/x',
    'https://u:p@a.example/',
    'https://xn--a.example/',
    'https://a.example:70000/',
  ])
    assert.equal(plainAuthority(uri), false, uri);
});
