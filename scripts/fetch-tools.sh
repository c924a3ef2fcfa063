#!/usr/bin/env bash
# Fetches the real outside tools some tests drive (Prometheus, promtool, headless Chromium) into
# .tools/, without root: each scripts/tools/NAME.sh downloads Debian's package and unpacks it.
# Called by `npm test`, so the README's one test command works on a fresh machine. A tool that
# cannot be fetched is named here; its tests then fail under CI=true and skip (saying so) elsewhere.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tools
missing=()
for script in scripts/tools/*.sh; do
  [ -e "$script" ] || continue
  name="$(basename "$script" .sh)"
  if ! bash "$script" .tools >".tools/$name.fetch.log" 2>&1; then
    missing+=("$name")
    echo "fetch-tools: could not fetch $name (see .tools/$name.fetch.log); its tests will skip locally and fail under CI" >&2
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then echo "fetch-tools: all tools present in .tools/"; fi
exit 0
