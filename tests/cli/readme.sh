#!/bin/sh
# readme.sh — every `worldkit` command of the README's sh blocks runs as
# printed and exits 0. A block that starts a server (`worldkit serve ...`)
# gets that server, on a free port and in memory; a block of client
# commands for `make run`'s server (`build/release/worldkit ...`) gets the
# server `make run` starts. Left out, and listed: the TLS block, whose
# host, certificates and token are a user's, and lines that are not
# worldkit's (make, cc, the benchmarks). Usage: readme.sh WORLDKIT SOURCE_DIR
set -u
. "$(dirname "$0")/wait_serving.sh"
. "$(dirname "$0")/checks.sh"
wk=$1
cd "$2" || exit 1
dir=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$dir"' EXIT

# The README's commands name the binary `worldkit` or build/release/worldkit.
worldkit() {
    "$wk" "$@"
}

# The sh blocks, a file per block: $dir/block.N.
awk -v out="$dir/block." '/^```sh/ { n++; inside = 1; next } /^```/ { inside = 0 } inside { print > (out n) }' README.md

# serve ARGS...: starts `worldkit serve ARGS` on a free port, in memory.
serve() {
    : >"$dir/serve.out"
    "$wk" serve "$@" --listen 127.0.0.1:0 --memory >"$dir/serve.out" 2>&1 &
    pid=$!
    wait_serving "$dir/serve.out" $pid
}

stop() {
    if [ -n "$pid" ]; then
        kill $pid
        wait $pid || { fail "the server of a README block did not exit 0:"; cat "$dir/serve.out"; }
        pid=
    fi
}

ran=0
for block in "$dir"/block.*; do
    served=$(sed -n 's/^worldkit serve \(.*\) &$/\1/p' "$block")
    if [ -n "$served" ]; then
        # shellcheck disable=SC2086 # the README's arguments, split as a shell would
        serve $served
    elif grep -q '^build/release/worldkit ' "$block"; then
        # shellcheck disable=SC2046 # make run's arguments, split as make's shell would
        serve $(sed -n 's|^\t.*/worldkit serve ||; s| --http [^ ]*||p' Makefile)
    fi
    while IFS= read -r line; do
        command=$(printf '%s\n' "$line" | sed 's/  *#.*//; s|^build/release/worldkit |worldkit |')
        case "$command" in
        "worldkit serve "*) continue ;;
        *"--tls-cert "* | *"--server "*) echo "left out (a user's host and keys): $line"; continue ;;
        "worldkit "*) ;;
        *) continue ;;
        esac
        if ! eval "$command" >"$dir/out" 2>"$dir/err"; then
            fail "README: '$command' did not exit 0:"
            cat "$dir/out" "$dir/err"
        fi
        ran=$((ran + 1))
    done <"$block"
    stop
done
[ $ran -ge 10 ] || fail "only $ran README commands found"
[ $failures -eq 0 ] && echo "ok: $ran README commands"
exit $((failures != 0))
