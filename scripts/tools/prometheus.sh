#!/usr/bin/env bash
# Fetches Debian's `prometheus` package (it ships both prometheus and promtool) into
# $1/prometheus/ without root: `apt-get download` then `dpkg-deb -x`. Idempotent: does nothing
# when both binaries are already there. Used by the tests of the status API's /metrics
# (a real Prometheus scrapes spinup; promtool checks the text and the shipped alert rules).
set -euo pipefail
tools="${1:?usage: prometheus.sh TOOLS_DIR}"
mkdir -p "$tools"
target="$(cd "$tools" && pwd)/prometheus"
if [ -x "$target/usr/bin/prometheus" ] && [ -x "$target/usr/bin/promtool" ]; then
  echo "prometheus: already in $target"
  exit 0
fi
if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1; then
  echo "prometheus: apt has no package lists on this machine (run apt-get update, as root, once); cannot fetch" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download prometheus)
deb="$(ls "$work"/prometheus_*.deb)"
rm -rf "$target.partial"
mkdir -p "$target.partial"
dpkg-deb -x "$deb" "$target.partial"
rm -rf "$target"
mv "$target.partial" "$target"
echo "prometheus: unpacked $(basename "$deb") into $target"
