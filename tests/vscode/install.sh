#!/usr/bin/env bash
# Installs code-server 4.100.3 (VS Code 1.100.3, the newest that runs on Node 20) and playwright-core here, offline
# from GitHub: code-server's @vscode/ripgrep would download ripgrep from GitHub, so its download cache is pre-filled
# with Debian's rg (the same 13.0.0), and the install runs with unsafe-perm (code-server's postinstall refuses root
# otherwise) and npm_config_yes (node-pty's install runs `npx node-gyp`). Needs ripgrep and libkrb5-dev (the
# kerberos addon) from Debian, which scripts/install provides. Skips everything when already installed.
set -euo pipefail
cd "$(dirname "$0")"
HERE=$PWD
if [ -x node_modules/.bin/code-server ] && [ -f node_modules/playwright-core/package.json ] \
  && [ "$(node -p "require('./node_modules/code-server/package.json').version")" = "4.100.3" ]; then
  exit 0
fi
RG=$(command -v rg) || { echo "install.sh: ripgrep (rg) is required: apt-get install ripgrep" >&2; exit 1; }
TMP_DIR="$HERE/.tmp"
CACHE="$TMP_DIR/vscode-ripgrep-cache-1.15.11"
mkdir -p "$CACHE"
cp "$RG" "$TMP_DIR/rg"
tar czf "$CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$TMP_DIR" rg
export TMPDIR="$TMP_DIR" npm_config_unsafe_perm=true npm_config_yes=true
if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
else
  npm install --no-audit --no-fund --loglevel=error
fi
rm -rf "$TMP_DIR"
