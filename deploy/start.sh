#!/bin/sh
# Starts optout as `npm start` does — node with package.json's config.nodeFlags, src/main.js —
# but as this very process (exec): a supervisor's SIGTERM reaches node itself and the drain runs
# (docs/deploy.md). Used by deploy/optout@.service and deploy/Containerfile. The Node of the
# pinned npm dependency when it is installed, else the one on PATH.
set -eu
cd "$(dirname "$0")/.."
node=node_modules/.bin/node
[ -x "$node" ] || node=node
flags=$("$node" -p 'require("./package.json").config.nodeFlags')
# shellcheck disable=SC2086 # the flags are words
exec "$node" $flags src/main.js
