/**
 * A private certificate authority for tests, and a server certificate it signed for
 * `localhost`, 127.0.0.1, 127.0.0.2, ::1 and `*.loopback.test` (subjectAltName): names under
 * loopback.test are for code that needs many host names on one loopback server, with a guard
 * whose lookup answers 127.0.0.1 (bench/unsubscribe). Made with openssl once per
 * process, on first import (~40 ms), in a temp dir that is removed when the process exits.
 *
 * Certificate checks stay on everywhere. A test process trusts the CA with trustTestCa();
 * a child process (the service started by a test) gets it through
 * `NODE_EXTRA_CA_CERTS=<caPath>` in its environment.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';

export interface TestCa {
  /** the CA certificate, PEM */
  caPem: string;
  /** file holding caPem (for NODE_EXTRA_CA_CERTS or `openssl s_client -CAfile`) */
  caPath: string;
  /** the server certificate (leaf only), PEM file */
  certPath: string;
  /** its private key (P-256), PEM file */
  keyPath: string;
}

function generate(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'optout-ca-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  // File names are relative to the temp dir; an option whose value has spaces comes as a pair.
  const openssl = (words: string, pairs: [string, string][] = []) =>
    execFileSync('openssl', [...words.split(' '), ...pairs.flat()], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  // P-256 keys: generated in milliseconds, and every TLS stack here speaks ECDSA.
  openssl('ecparam -name prime256v1 -genkey -noout -out ca.key');
  openssl('req -x509 -new -key ca.key -sha256 -days 3650 -out ca.pem', [
    ['-subj', '/CN=optout test CA'],
    ['-addext', 'basicConstraints=critical,CA:TRUE'],
    ['-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
  ]);
  openssl('ecparam -name prime256v1 -genkey -noout -out server.key');
  openssl('req -new -key server.key -subj /CN=localhost -out server.csr');
  writeFileSync(
    join(dir, 'server.ext'),
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
      'subjectAltName=DNS:localhost,DNS:*.loopback.test,IP:127.0.0.1,IP:127.0.0.2,IP:::1',
      '',
    ].join('\n'),
  );
  openssl(
    'x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 3650 -sha256 -extfile server.ext -out server.pem',
  );
  return {
    caPem: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    caPath: join(dir, 'ca.pem'),
    certPath: join(dir, 'server.pem'),
    keyPath: join(dir, 'server.key'),
  };
}

export const testCa: TestCa = generate();
export const { caPem, caPath, certPath, keyPath } = testCa;

let trusted = false;

/**
 * Adds the test CA to this process's default trust store (`tls.setDefaultCACertificates`,
 * Node ≥ 24.5), so every TLS client that passes no `ca` of its own (imapflow, undici,
 * node:https) accepts the test servers while still verifying them. Idempotent.
 */
export function trustTestCa(): void {
  if (trusted) return;
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), caPem]);
  trusted = true;
}
