#!/usr/bin/env bash
# Fetches Debian's headless Chromium into $1/chromium/ without root, for the HTML report's browser
# tests: `apt-get download` the package and every library it needs that this machine lacks
# (followed through their own dependencies), then `dpkg-deb -x` them all into one tree.
# Idempotent: a tree whose binary already finds all its libraries is left alone.
# Result: $1/chromium/chromium-headless-shell (a launcher that sets LD_LIBRARY_PATH).
set -euo pipefail
mkdir -p "${1:?usage: chromium.sh TOOLS_DIR}"
target="$(cd "$1" && pwd)/chromium"
root="$target/root"
debs="$target/debs"
binary="$root/usr/lib/chromium/chromium-headless-shell"
launcher="$target/chromium-headless-shell"
mkdir -p "$root" "$debs"

library_path() {
  local dirs=()
  for dir in "$root/usr/lib/x86_64-linux-gnu" "$root/usr/lib/x86_64-linux-gnu/pulseaudio" "$root/lib/x86_64-linux-gnu" "$root/usr/lib/chromium"; do
    [ -d "$dir" ] && dirs+=("$dir")
  done
  (IFS=:; echo "${dirs[*]}")
}

missing_libraries() {
  LD_LIBRARY_PATH="$(library_path)" ldd "$binary" 2>/dev/null | grep 'not found' || true
}

installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

if [ -x "$binary" ] && [ -x "$launcher" ] && [ -z "$(missing_libraries)" ]; then
  echo "chromium: already in $target"
  exit 0
fi

# Breadth-first over Depends (alternatives and virtual packages: the first real one), fetching
# only what dpkg does not already have installed.
queue=(chromium-headless-shell)
declare -A seen=()
while [ "${#queue[@]}" -gt 0 ]; do
  package="${queue[0]}"
  queue=("${queue[@]:1}")
  [ -n "${seen[$package]:-}" ] && continue
  seen[$package]=1
  if ! ls "$debs/${package}_"*.deb >/dev/null 2>&1; then
    (cd "$debs" && apt-get download "$package")
  fi
  while read -r dep; do
    [ -z "$dep" ] && continue
    [ -n "${seen[$dep]:-}" ] && continue
    installed "$dep" || queue+=("$dep")
  done < <(apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances "$package" \
    | awk '/^ *\|?(Pre)?Depends:/ { if ($2 !~ /^</) print $2 }')
done

for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$root"; done

cat >"$launcher" <<LAUNCHER
#!/usr/bin/env bash
# Headless Chromium unpacked without root: its libraries live beside it.
export LD_LIBRARY_PATH="$(library_path)\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "$binary" "\$@"
LAUNCHER
chmod +x "$launcher"

still="$(missing_libraries)"
if [ -n "$still" ]; then
  echo "chromium: libraries still missing:" >&2
  echo "$still" >&2
  exit 1
fi
echo "chromium: unpacked into $target ($(ls "$debs" | wc -l) packages)"
# The unpacked tree is what the tests use; the packages themselves are only disk space now.
rm -rf "$debs"
