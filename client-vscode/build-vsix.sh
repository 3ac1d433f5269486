#!/usr/bin/env bash
# Builds client-vscode/dist/heredoc-lsp-<version>.vsix from a clean checkout:
#   1. npm ci (when node_modules is missing);
#   2. the TextMate grammars from ../syntaxes (checked to be up to date with their generator);
#   3. bundled/libs: the server (../server/heredoc_lsp) and its pure-Python dependencies (bundle-requirements.txt,
#      pure wheels only, so any Python >= 3.10 runs them), then a smoke test that the server imports from the
#      bundle alone (python -S: no site-packages);
#   4. vsce package (which runs `vscode:prepublish`: the esbuild bundle dist/extension.js); its output has no
#      WARNING (tests/vscode/test_marketplace.py checks) and its tree of the packaged files is left out.
# Prints the .vsix path on the last line. PYTHON selects the interpreter whose pip downloads the wheels
# (default: the repository's .venv, else python3).
set -euo pipefail
cd "$(dirname "$0")"
HERE=$PWD
ROOT=$(cd .. && pwd)
PY=${PYTHON:-}
if [ -z "$PY" ]; then
  if [ -x "$ROOT/.venv/bin/python" ]; then PY=$ROOT/.venv/bin/python; else PY=python3; fi
fi

if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi

"$PY" "$ROOT/syntaxes/generate.py" --check
rm -rf syntaxes
mkdir syntaxes
cp "$ROOT"/syntaxes/*.tmLanguage.json syntaxes/

rm -rf bundled
mkdir -p bundled/libs
PIP_ROOT_USER_ACTION=ignore "$PY" -m pip install --quiet --disable-pip-version-check --no-input --no-compile --no-deps \
  --target bundled/libs --only-binary=:all: --platform any --python-version 3.10 --implementation py --abi none \
  -r bundle-requirements.txt 2> >(grep -v "^WARNING: Location" >&2)
cp -R "$ROOT/server/heredoc_lsp" bundled/libs/heredoc_lsp
find bundled -name __pycache__ -prune -exec rm -rf {} +
rm -rf bundled/libs/bin
PYTHONPATH="$HERE/bundled/libs" PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1 "$PY" -S -c \
  "import heredoc_lsp.lsp.server, heredoc_lsp.cli.main; print('bundle ok: heredoc_lsp', heredoc_lsp.__version__)" >&2

VERSION=$(node -p "require('./package.json').version")
OUT="dist/heredoc-lsp-$VERSION.vsix"
rm -f "$OUT"
# vsce lists every packaged file as a tree: left out (tests/vscode/test_marketplace.py checks the list itself);
# its warnings, errors and the DONE line go through.
npx --no-install vsce package --no-dependencies -o "$OUT" 2>&1 \
  | awk '/Files included in the VSIX:/ {tree = 1; next} tree && /^ *$/ {tree = 0; next} /vsce ls --tree/ {next} !tree' >&2
echo "$HERE/$OUT"
