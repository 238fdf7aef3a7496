#!/usr/bin/env bash
# The client frameworks that tests/frameworks drives against `council serve`, each in an environment of its own:
# instructor in .venv-frameworks/instructor (it cannot share .venv's openai), the Vercel AI SDK and LangChain.js
# in tests/frameworks/js/node_modules. Idempotent: an environment whose pins have not changed is left as it is.
set -euo pipefail
cd "$(dirname "$0")/.."

requirements=tests/frameworks/instructor-requirements.txt
venv=.venv-frameworks/instructor
# The stamp is a copy of the requirements the venv was built from: a changed pin rebuilds it.
if ! cmp -s "$requirements" "$venv/installed-requirements.txt"; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/installed-requirements.txt"
fi

js=tests/frameworks/js
# npm ci empties node_modules first, so the stamp (a copy of the lock file it installed) goes with it.
if ! cmp -s "$js/package-lock.json" "$js/node_modules/installed-package-lock.json"; then
  (cd "$js" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$js/package-lock.json" "$js/node_modules/installed-package-lock.json"
fi
