#!/bin/sh
# embed.sh — installs worldkit into a temporary prefix and builds
# tests/install/embed.c outside the tree against it, once with pkg-config and
# once with CMake's find_package; each program loads WORLD and must print
# EXPECTED, the world pose of the entity called NAME (`model::link`). The
# installed command must serve the installed live view's page.
#
#   embed.sh CMAKE BUILD_DIR CC WORLD NAME EXPECTED
set -eu
cmake=$1 build=$2 cc=$3 world=$4 name=$5 expected=$6
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$cmake" --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in bin/worldkit include/worldkit/wk_formats.h share/worldkit/web/index.html share/worldkit/web/view.js; do
  [ -e "$tmp/prefix/$f" ] || { echo "embed: $f not installed"; exit 1; }
done

check() {
  got=$("$1" "$world" "$name")
  if [ "$got" != "$expected" ]; then
    echo "embed: $2: got '$got', expected '$expected'"
    exit 1
  fi
  echo "ok   $2: $got"
}

# pkg-config: the library is static, so --static brings its dependencies.
pc_dir=$(dirname "$(find "$tmp/prefix" -name worldkit.pc)")
export PKG_CONFIG_PATH="$pc_dir"
# shellcheck disable=SC2046
"$cc" $(pkg-config --cflags worldkit) "$here/embed.c" -o "$tmp/embed_pc" $(pkg-config --static --libs worldkit)
check "$tmp/embed_pc" pkg-config

# find_package(worldkit), in a project of its own.
"$cmake" -S "$here" -B "$tmp/project" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_BUILD_TYPE=Debug >/dev/null
"$cmake" --build "$tmp/project" >/dev/null
check "$tmp/project/embed" find_package

# The installed command serves the installed page, not the source tree's:
# a mark written into the installed copy only must come back.
mark="<!-- installed copy $$ -->"
echo "$mark" >>"$tmp/prefix/share/worldkit/web/index.html"
# The file exists before the server writes to it: sed reads it at once.
: >"$tmp/serve.out"
"$tmp/prefix/bin/worldkit" serve --listen 127.0.0.1:0 --memory --http 127.0.0.1:0 >>"$tmp/serve.out" 2>&1 &
server=$!
url=
for _ in $(seq 100); do
  url=$(sed -n 's/^worldkit: live view on //p' "$tmp/serve.out")
  [ -n "$url" ] && break
  sleep 0.1
done
page=$(python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
  "$url" 2>&1 || true)
kill "$server" 2>/dev/null || true
wait "$server" || true
case "$page" in
*"$mark"*) echo "ok   the installed command serves the installed page" ;;
*) echo "embed: the installed command did not serve the installed page ($url): $page"; cat "$tmp/serve.out"; exit 1 ;;
esac
