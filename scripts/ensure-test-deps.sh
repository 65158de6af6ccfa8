#!/usr/bin/env bash
# Installs the Debian packages the test suite talks to when they are missing (runs as
# npm's `pretest`, and from .ci/run): Dovecot (the real IMAP server of the scan tests),
# PostgreSQL's server binaries (the test run starts its own private server with initdb and
# postgres, test/helpers/pg-server.ts; the machine's own PostgreSQL service is never used),
# openssl (the tests' private CA), Chromium (the browser tests drive Debian's build
# through playwright-core; no browser is ever downloaded) and nginx (the deployment tests run
# deploy/nginx.conf as an unprivileged process on loopback, test/helpers/nginx.ts). Needs root for apt-get; otherwise it
# says what to install and stops.
set -euo pipefail

missing=()
[ -x /usr/sbin/dovecot ] || missing+=(dovecot-imapd)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/sbin/nginx ] || missing+=(nginx)

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
  echo "tests need these Debian packages: ${missing[*]} (run: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
echo "installing test dependencies: ${missing[*]}"
apt-get update -qq
# The packages' own services are not needed (tests start private instances on free ports):
# policy-rc.d answers 101 (invoke-rc.d's "action forbidden"), so none is started (nginx's would
# take port 80), unless the machine already had a policy of its own.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
  own_policy=1
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
fi
trap '[ "$own_policy" = 1 ] && rm -f "$policy"' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
