#!/usr/bin/env bash
# Prepares a real VS Code host for the end-to-end tests on a Debian machine, as root, using only the
# npm registry and Debian's packages: code-server (a full VS Code web/server build) and playwright-core
# driving Debian's chromium. Everything lands in $CK_HOST_DIR and is reused when already there.
#
# Prints nothing but progress; exits non-zero when a step fails. Safe to run again.
set -euo pipefail

CK_HOST_DIR=${CK_HOST_DIR:-/tmp/ck-vscode-host}
CS_VERSION=${CS_VERSION:-4.100.3}          # VS Code 1.100.3, runs on Node 20
PLAYWRIGHT_VERSION=${PLAYWRIGHT_VERSION:-1.65.1}
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
mkdir -p "$CK_HOST_DIR"
log() { echo "[e2e-setup] $*"; }

# ---- system packages --------------------------------------------------------------------------
need_apt=0
for cmd in chromium rg curl; do command -v "$cmd" >/dev/null || need_apt=1; done
[ -e /usr/include/krb5.h ] || need_apt=1
if [ "$need_apt" = 1 ]; then
  log "installing Debian packages (chromium, ripgrep, native build tools)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    build-essential python3 pkg-config libkrb5-dev libsecret-1-dev libx11-dev libxkbfile-dev \
    ripgrep chromium curl ca-certificates fonts-dejavu-core >/dev/null
fi

# ---- code-server ------------------------------------------------------------------------------
CS_DIR="$CK_HOST_DIR/code-server-$CS_VERSION"
if [ -f "$CS_DIR/.complete" ] && [ -x "$CS_DIR/node_modules/.bin/code-server" ]; then
  log "code-server $CS_VERSION already installed in $CS_DIR"
else
  log "installing code-server $CS_VERSION from npm (takes about 90 s)"
  dl="$CK_HOST_DIR/dl"; rm -rf "$dl" "$CS_DIR"; mkdir -p "$dl" "$CS_DIR"
  (cd "$dl" && npm pack --silent "code-server@$CS_VERSION" >/dev/null)
  tgz=$(ls "$dl"/code-server-*.tgz)
  want_major=$(tar -xzf "$tgz" -O package/package.json | node -p 'JSON.parse(require("fs").readFileSync(0)).engines.node')
  have_major=$(node -p 'process.versions.node.split(".")[0]')
  if [ "$want_major" != "$have_major" ]; then
    echo "code-server $CS_VERSION needs Node $want_major, this machine has Node $have_major" >&2; exit 1
  fi
  nodedir=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
  [ -e "$nodedir/include/node/node.h" ] || { echo "node headers missing under $nodedir/include" >&2; exit 1; }
  # @vscode/ripgrep's postinstall downloads rg unless its cache holds the archive: seed it with Debian's rg.
  rg_pkg=$(tar -xzf "$tgz" -O package/lib/vscode/npm-shrinkwrap.json \
    | node -p 'JSON.parse(require("fs").readFileSync(0)).packages["node_modules/@vscode/ripgrep"].version')
  (cd "$dl" && npm pack --silent "@vscode/ripgrep@$rg_pkg" >/dev/null)
  rg_tag=$(tar -xzf "$dl/vscode-ripgrep-$rg_pkg.tgz" -O package/lib/postinstall.js | sed -n "s/^const VERSION = '\(.*\)';/\1/p")
  rg_cache="$(node -p 'require("os").tmpdir()')/vscode-ripgrep-cache-$rg_pkg"
  mkdir -p "$rg_cache" "$dl/rg"
  cp "$(command -v rg)" "$dl/rg/rg"
  tar czf "$rg_cache/ripgrep-$rg_tag-x86_64-unknown-linux-musl.tar.gz" -C "$dl/rg" rg
  echo '{"name":"ck-code-server","private":true}' > "$CS_DIR/package.json"
  # unsafe_perm: the postinstall refuses root otherwise; yes: node-pty's postinstall runs `npx node-gyp`;
  # nodedir: native modules compile against the local headers instead of downloading them.
  if ! (cd "$CS_DIR" && npm_config_unsafe_perm=true npm_config_yes=true npm_config_nodedir="$nodedir" \
        npm install --no-audit --no-fund --foreground-scripts "$tgz" >"$CK_HOST_DIR/code-server-install.log" 2>&1); then
    tail -40 "$CK_HOST_DIR/code-server-install.log" >&2; exit 1
  fi
  test -x "$CS_DIR/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg"
  touch "$CS_DIR/.complete"
fi

# ---- playwright-core --------------------------------------------------------------------------
PW_DIR="$CK_HOST_DIR/playwright-$PLAYWRIGHT_VERSION"
if [ -f "$PW_DIR/.complete" ]; then
  log "playwright-core $PLAYWRIGHT_VERSION already installed"
else
  log "installing playwright-core $PLAYWRIGHT_VERSION"
  rm -rf "$PW_DIR"; mkdir -p "$PW_DIR"
  echo '{"name":"ck-e2e-driver","private":true}' > "$PW_DIR/package.json"
  (cd "$PW_DIR" && npm install --no-audit --no-fund --ignore-scripts "playwright-core@$PLAYWRIGHT_VERSION" >/dev/null)
  touch "$PW_DIR/.complete"
fi
log "ready: code-server in $CS_DIR, playwright-core in $PW_DIR"
